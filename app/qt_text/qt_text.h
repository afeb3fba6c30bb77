#pragma once
// Perflab's text in Qt's strings: the one conversion every Qt library of app/ uses (q) and the
// HTML escape of the report's pages (esc). Header only (perflab_qt_text).
#include <QString>
#include <string>

namespace perflab {

inline QString q(const std::string& s) {
  return QString::fromStdString(s);
}

inline QString esc(const QString& s) {
  return s.toHtmlEscaped();
}

}  // namespace perflab
