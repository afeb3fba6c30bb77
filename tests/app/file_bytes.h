#pragma once
// A file's whole contents for the app tests: an export, a saved settings file, a run.
#include <QByteArray>
#include <QFile>
#include <QString>

namespace perflab::test {

// Empty when the file cannot be opened.
inline QByteArray read_all(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace perflab::test
