// Readable secondary text colours (muted_text.h).
#include "muted_text.h"

#include <algorithm>
#include <cmath>

namespace perflab::gui {

namespace {

double channel(double c) {
  return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double luminance(const QColor& c) {
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

QColor blend(const QColor& from, const QColor& to, double t) {
  const auto mix = [t](double a, double b) { return a + (b - a) * t; };
  return QColor::fromRgbF(static_cast<float>(mix(from.redF(), to.redF())),
                          static_cast<float>(mix(from.greenF(), to.greenF())),
                          static_cast<float>(mix(from.blueF(), to.blueF())));
}

}  // namespace

double contrast_ratio(const QColor& a, const QColor& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor muted_text(const QPalette& palette) {
  const QColor text = palette.color(QPalette::WindowText);
  const QColor back = palette.color(QPalette::Window);
  // From 60% of the way to the background back toward the text, until it reads.
  for (double t = 0.6; t > 0; t -= 0.02) {
    const QColor c = blend(text, back, t);
    if (contrast_ratio(c, back) >= kMinTextContrast) return c;
  }
  return text;
}

QString muted_text_style(const QPalette& palette) {
  return QString("color: %1;").arg(muted_text(palette).name());
}

}  // namespace perflab::gui
