// The handout's page breaks (pagination.h): found on the document's own layout, one at a time,
// until no table is split and no heading is orphaned.
#include "report/pagination.h"

#include <cmath>
#include <optional>
#include <vector>

#include <QAbstractTextDocumentLayout>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextFrame>
#include <QTextTable>

namespace perflab::gui {

namespace {

// One thing on the page: a top-level block or table, where the layout put it.
struct Item {
  QTextBlock block;             // valid for a block
  QTextFrame* frame = nullptr;  // set for a table
  QRectF rect;
};

int page_of(double y, double page_height) {
  return static_cast<int>(std::floor(y / page_height));
}

std::vector<Item> items_of(QTextDocument& doc) {
  std::vector<Item> items;
  QAbstractTextDocumentLayout* layout = doc.documentLayout();
  for (auto it = doc.rootFrame()->begin(); !it.atEnd(); ++it) {
    if (QTextFrame* f = it.currentFrame())
      items.push_back({QTextBlock(), f, layout->frameBoundingRect(f)});
    else if (it.currentBlock().isValid() && !it.currentBlock().text().trimmed().isEmpty())
      items.push_back({it.currentBlock(), nullptr, layout->blockBoundingRect(it.currentBlock())});
  }
  return items;
}

void break_before(const Item& item) {
  if (item.frame) {
    QTextFrameFormat f = item.frame->frameFormat();
    f.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    item.frame->setFrameFormat(f);
  } else {
    QTextBlockFormat f = item.block.blockFormat();
    f.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    QTextCursor(item.block).setBlockFormat(f);
  }
}

bool breaks_before(const Item& item) {
  const auto policy = item.frame ? item.frame->frameFormat().pageBreakPolicy()
                                 : item.block.blockFormat().pageBreakPolicy();
  return policy & QTextFormat::PageBreak_AlwaysBefore;
}

bool is_heading(const Item& item) {
  return !item.frame && item.block.blockFormat().headingLevel() > 0;
}

// What moves when items[i] must start a page: it, with the headings right above it (a heading
// goes with what it heads) unless one of them starts a page already.
const Item& with_its_headings(const std::vector<Item>& items, std::size_t i) {
  while (i > 0 && is_heading(items[i - 1]) && !breaks_before(items[i])) --i;
  return items[i];
}

// The first item that breaks a rule, with its headings; nullopt when none does.
std::optional<Item> first_offender(QTextDocument& doc) {
  const double page = doc.pageSize().height();
  const auto items = items_of(doc);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const int first = page_of(it.rect.top(), page);
    const bool split = it.frame && qobject_cast<QTextTable*>(it.frame) &&
                       it.rect.height() < page * 0.9 &&
                       page_of(it.rect.bottom() - 1, page) != first;
    const bool orphan =
        is_heading(it) && i + 1 < items.size() && page_of(items[i + 1].rect.top(), page) != first;
    if ((split || orphan) && !breaks_before(with_its_headings(items, i)))
      return with_its_headings(items, i);
  }
  return std::nullopt;
}

}  // namespace

int keep_blocks_whole(QTextDocument& doc) {
  int added = 0;
  // Each break moves what follows: find the first offender again on the new layout. Bounded by
  // the number of items (each gets at most one break).
  for (int guard = static_cast<int>(items_of(doc).size()); guard > 0; --guard) {
    const auto offender = first_offender(doc);
    if (!offender) break;
    if (qEnvironmentVariableIsSet("PAGDEBUG"))
      qWarning() << "break before"
                 << (offender->frame ? QString("table") : offender->block.text().left(40))
                 << offender->rect;
    break_before(*offender);
    ++added;
  }
  return added;
}

}  // namespace perflab::gui
