// Registers resources.qrc (compiled into the static perflab_report library) with Qt's resource
// system; a static library's resource initializer is otherwise dropped by the linker.
#include "report/resources.h"

#include <QtGlobal>

void perflab_init_gui_resources() {
  static bool done = false;
  if (done) return;
  done = true;
  Q_INIT_RESOURCE(resources);
}
