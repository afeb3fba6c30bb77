#pragma once
// Page breaks of a paged rich-text document laid out as a handout: a table never split across
// pages (when it fits on one) and a heading never left at the foot of a page without what it heads.
#include <QTextDocument>

namespace perflab::gui {

// Moves to the next page (a page break before it) every top-level table that fits on a page but
// would be split, and every heading whose next block or table would start on a later page. The
// document must have its page size set. Returns how many breaks were added.
int keep_blocks_whole(QTextDocument& doc);

}  // namespace perflab::gui
