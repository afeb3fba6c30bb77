// The guides window (guides_window.h).
#include "guides_window.h"

#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QTextBrowser>
#include <QUrl>

// The guides' resources live in this static library: registered before the first page is read.
static void init_guides_resources() {
  Q_INIT_RESOURCE(guides);
}

namespace perflab::gui {

namespace {

constexpr const char* kRoot = ":/docs/";

// The pages in the order docs/README.md lists them, the overview first.
struct Page {
  const char* file;
  const char* title;
};
constexpr Page kPages[] = {{"README.md", "Overview"},           {"iolist.md", "IO lists"},
                           {"sharding.md", "Sharding"},         {"caching.md", "Caching"},
                           {"latency.md", "Open-loop latency"}, {"lecture.md", "Lecture plans"},
                           {"verdicts.md", "Reading a result"}, {"cli.md", "Command line"},
                           {"proxy.md", "The proxy"},           {"safety.md", "Safety"}};

}  // namespace

GuidesWindow::GuidesWindow(QWidget* parent) : QDialog(parent) {
  init_guides_resources();
  setObjectName("guidesWindow");
  setWindowTitle("Guides");  // "Guides — Perflab"
  auto* h = new QHBoxLayout(this);
  pages_ = new QListWidget;
  pages_->setObjectName("guidePages");
  for (const Page& p : kPages) {
    auto* item = new QListWidgetItem(p.title, pages_);
    item->setData(Qt::UserRole, QString(p.file));
  }
  pages_->setMaximumWidth(pages_->sizeHintForColumn(0) + 4 * pages_->frameWidth() + 24);
  h->addWidget(pages_);
  browser_ = new QTextBrowser;
  browser_->setObjectName("guideBrowser");
  browser_->setOpenExternalLinks(true);  // links to other sites open in the browser
  h->addWidget(browser_, 1);
  connect(pages_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0) showPage(pages_->item(row)->data(Qt::UserRole).toString());
  });
  // A link to another guide, followed inside: the list follows it.
  connect(browser_, &QTextBrowser::sourceChanged, this, [this](const QUrl& url) {
    const QString file = QFileInfo(url.path()).fileName();
    for (int i = 0; i < pages_->count(); ++i)
      if (pages_->item(i)->data(Qt::UserRole).toString() == file && pages_->currentRow() != i) {
        const QSignalBlocker block(pages_);
        pages_->setCurrentRow(i);
      }
  });
  resize(1000, 700);
  showPage("README.md");
}

bool GuidesWindow::showPage(const QString& page) {
  const QString path = kRoot + page;
  if (!QFile::exists(path)) return false;
  const QUrl url("qrc" + path);
  if (browser_->source() != url) browser_->setSource(url, QTextDocument::MarkdownResource);
  return true;
}

QString GuidesWindow::page() const {
  return QFileInfo(browser_->source().path()).fileName();
}

}  // namespace perflab::gui
