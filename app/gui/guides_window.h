#pragma once
// The guides in docs/, compiled into the program and shown in a window of their own (Help >
// Guides, F1): the list of pages beside the page, its links followed inside the window.
#include <QDialog>
#include <QString>

class QListWidget;
class QTextBrowser;

namespace perflab::gui {

class GuidesWindow : public QDialog {
  Q_OBJECT
 public:
  explicit GuidesWindow(QWidget* parent = nullptr);
  // Shows the page, e.g. "sharding.md" (a name of docs/); false when there is none.
  bool showPage(const QString& page);
  QString page() const;  // the file name shown
  QTextBrowser* browser() const { return browser_; }
  QListWidget* pages() const { return pages_; }

 private:
  QListWidget* pages_;
  QTextBrowser* browser_;
};

}  // namespace perflab::gui
