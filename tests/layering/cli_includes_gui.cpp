// perflab-cli reaching into the window: must not compile against perflab_cli_commands. The CLI
// shares only app/charts and app/report with the window, never app/gui's headers.
#include "cli/command.h"
#include "main_window.h"
