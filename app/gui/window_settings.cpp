// open_settings (window_settings.h): the settings, or a throwaway copy of them.
#include "window_settings.h"

#include <QTemporaryDir>

namespace perflab::gui {

namespace {

// The temporary folder is a base before QSettings: it is removed after QSettings last writes.
struct TemporaryFolder {
  QTemporaryDir dir;
};

class ThrowawaySettings : private TemporaryFolder, public QSettings {
 public:
  explicit ThrowawaySettings(const QSettings& from)
      : QSettings(dir.filePath("settings.ini"), QSettings::IniFormat) {
    for (const QString& key : from.allKeys()) setValue(key, from.value(key));
  }
};

std::unique_ptr<QSettings> user_settings(const QString& file) {
  return file.isEmpty() ? std::make_unique<QSettings>()
                        : std::make_unique<QSettings>(file, QSettings::IniFormat);
}

}  // namespace

std::unique_ptr<QSettings> open_settings(const QString& file, bool read_only) {
  if (!read_only) return user_settings(file);
  return std::make_unique<ThrowawaySettings>(*user_settings(file));
}

}  // namespace perflab::gui
