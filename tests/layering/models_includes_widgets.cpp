// The item models reaching up to a page of the window: must not compile against perflab_models
// (a library of its own, tested without the windows).
#include "chart_panel.h"
#include "models/points_model.h"
