#pragma once
// A minimal SVG writer for the charts: self-contained (no fonts or scripts to fetch), with the
// few shapes the roofline, comparison and report charts use, and log/linear axis mapping.
#include <cmath>
#include <string>

namespace warpsim {

class Svg {
 public:
  Svg(double width, double height, const std::string& title);
  void line(double x1, double y1, double x2, double y2, const std::string& colour, double width = 1, bool dashed = false);
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip = "");
  void circle(double x, double y, double r, const std::string& fill, const std::string& tooltip = "");
  // anchor: "start", "middle" or "end"; rotate: degrees about (x, y).
  void text(double x, double y, const std::string& s, double size = 12, const std::string& anchor = "start",
            const std::string& colour = "#222", double rotate = 0);
  std::string str() const;  // the document, closed

 private:
  double width_, height_;
  std::string body_;
};

// Maps a value range onto pixels, linearly or in log10.
struct Axis {
  double lo, hi, px_lo, px_hi;
  bool log = false;
  double operator()(double v) const {
    if (log) {
      v = std::max(v, lo);
      return px_lo + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (px_hi - px_lo);
    }
    return px_lo + (v - lo) / (hi - lo) * (px_hi - px_lo);
  }
};

// "1.2 T", "350 G", "4 k": engineering prefixes for tick and point labels.
std::string si(double v, int digits = 3);
// A colour from a fixed, colour-blind-friendly palette of kPaletteSize colours (i wraps round).
inline constexpr size_t kPaletteSize = 12;
const char* palette(size_t i);

}  // namespace warpsim
