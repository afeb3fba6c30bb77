// FontZoom (font_zoom.h): the steps, the window's font and the charts' font scale.
#include "font_zoom.h"

#include <algorithm>
#include <iterator>

#include <QAction>
#include <QSettings>
#include <QWidget>

#include "chart_panel.h"

namespace perflab::gui {

FontZoom::FontZoom(QWidget* window, QSettings* settings, std::vector<ChartPanel*> panels)
    : QObject(window),
      window_(window),
      settings_(settings),
      panels_(std::move(panels)),
      base_(window->font()) {
  const auto action = [this](const QString& text, QList<QKeySequence> keys, auto slot) {
    auto* a = new QAction(text, window_);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WindowShortcut);
    connect(a, &QAction::triggered, this, slot);
    window_->addAction(a);  // the shortcuts work with the menu bar hidden too
    actions_.push_back(a);
  };
  action("&Larger text", {QKeySequence::ZoomIn, QKeySequence("Ctrl+=")}, &FontZoom::zoomIn);
  action("&Smaller text", {QKeySequence::ZoomOut}, &FontZoom::zoomOut);
  action("&Normal text size", {QKeySequence("Ctrl+0")}, [this] { setScale(1.0); });
  setScale(settings_->value("view/font_scale", 1.0).toDouble());
}

void FontZoom::setScale(double scale) {
  scale_ = std::clamp(scale, std::begin(kSteps)[0], std::end(kSteps)[-1]);
  QFont f = base_;
  if (base_.pointSizeF() > 0)
    f.setPointSizeF(base_.pointSizeF() * scale_);
  else
    f.setPixelSize(std::max(1, static_cast<int>(base_.pixelSize() * scale_ + 0.5)));
  window_->setFont(f);
  for (ChartPanel* p : panels_) p->setFontScale(scale_);
  if (scale_ == 1.0)
    settings_->remove("view/font_scale");
  else
    settings_->setValue("view/font_scale", scale_);
}

void FontZoom::zoomIn() {
  const auto* next = std::upper_bound(std::begin(kSteps), std::end(kSteps), scale_ + 1e-9);
  if (next != std::end(kSteps)) setScale(*next);
}

void FontZoom::zoomOut() {
  const auto* below = std::lower_bound(std::begin(kSteps), std::end(kSteps), scale_ - 1e-9);
  if (below != std::begin(kSteps)) setScale(*std::prev(below));
}

}  // namespace perflab::gui
