#include "cli/qt_app.h"

#include <cstdio>

namespace perflab {

namespace {

QtMessageHandler g_qt_handler = nullptr;

// Qt's complaint about a missing runtime folder (XDG_RUNTIME_DIR: no desktop session, as in a
// terminal over ssh or in CI) is noise for a command that needs none; everything else passes.
void quiet_qt_messages(QtMsgType type, const QMessageLogContext& context, const QString& msg) {
  if (type == QtWarningMsg && msg.startsWith("QStandardPaths:") &&
      (msg.contains("XDG_RUNTIME_DIR") || msg.contains("runtime directory")))
    return;
  if (g_qt_handler)
    g_qt_handler(type, context, msg);
  else
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, msg)));
}

}  // namespace

AppGuard::AppGuard() {
  if (QCoreApplication::instance()) return;
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  g_qt_handler = qInstallMessageHandler(quiet_qt_messages);
  app_ = std::make_unique<QApplication>(argc_, argv_);
}

}  // namespace perflab
