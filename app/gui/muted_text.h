#pragma once
// Secondary text (help lines, notes, the presentation view's footer) in a colour a room can read:
// the mildest blend of the palette's text colour into its background whose contrast with that
// background reaches WCAG's 4.5:1 for normal text. Grey on grey ("palette(mid)", about 1.7:1 on
// a light window) is not.
#include <QColor>
#include <QPalette>
#include <QString>

namespace perflab::gui {

inline constexpr double kMinTextContrast = 4.5;

// WCAG 2 contrast ratio of two colours (1 to 21), from their relative luminances.
double contrast_ratio(const QColor& a, const QColor& b);

// The palette's WindowText blended toward its Window colour as far as kMinTextContrast allows.
QColor muted_text(const QPalette& palette);
// The same as a style sheet rule: "color: #6b6b6b;".
QString muted_text_style(const QPalette& palette);

}  // namespace perflab::gui
