#pragma once
// The window's settings: the platform's QSettings for Perflab (or an INI file given), or, for a
// window that must leave them as they are (a --screenshot), a throwaway copy of them: read as
// usual, written only to a temporary file removed with the object.
#include <memory>

#include <QSettings>
#include <QString>

namespace perflab::gui {

// `file` empty: the platform's settings. `read_only`: a copy that never writes back.
std::unique_ptr<QSettings> open_settings(const QString& file, bool read_only);

}  // namespace perflab::gui
