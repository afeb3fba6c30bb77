#pragma once
// The resources compiled into perflab_report (resources/resources.qrc: the teaching texts and the
// application's icon). A static library's resources are registered by hand: call this once
// before reading ":/..." (later calls do nothing).
void perflab_init_gui_resources();
