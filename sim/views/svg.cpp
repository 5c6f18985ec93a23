#include "views/svg.h"

#include <cstdio>
#include <iterator>

#include "views/json_text.h"

namespace warpsim {

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}
std::string tip(const std::string& t) { return t.empty() ? "" : "<title>" + xml_escape(t) + "</title>"; }
}  // namespace

Svg::Svg(double width, double height, const std::string& title) : width_(width), height_(height) {
  body_ = "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" fill=\"white\"/>\n";
  text(width / 2, 22, title, 15, "middle");
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& colour, double width, bool dashed) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" stroke=\"" + colour +
           "\" stroke-width=\"" + num(width) + "\"" + (dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>\n";
}

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" fill=\"" + fill + "\">" +
           tip(tooltip) + "</rect>\n";
}

void Svg::circle(double x, double y, double r, const std::string& fill, const std::string& tooltip) {
  body_ += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" fill=\"" + fill +
           "\" stroke=\"#000\" stroke-width=\"1\">" + tip(tooltip) + "</circle>\n";
}

void Svg::text(double x, double y, const std::string& s, double size, const std::string& anchor, const std::string& colour, double rotate) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" + anchor + "\" fill=\"" +
           colour + "\"" + (rotate != 0 ? " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"" : "") + ">" +
           xml_escape(s) + "</text>\n";
}

std::string Svg::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " +
         num(width_) + " " + num(height_) + "\" font-family=\"sans-serif\">\n" + body_ + "</svg>\n";
}

std::string si(double v, int digits) {
  static const char* const kPrefix[] = {"", " k", " M", " G", " T", " P", " E"};
  int p = 0;
  double a = std::fabs(v);
  while (a >= 1000 && p < 6) {
    a /= 1000;
    v /= 1000;
    ++p;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g%s", digits, v, kPrefix[p]);
  return buf;
}

const char* palette(size_t i) {
  // Okabe-Ito (distinguishable with the common colour-vision deficiencies), then four of Tol's
  // muted colours, so the twelve warp states each get their own.
  static const char* const kColours[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                         "#999999", "#000000", "#882255", "#44AA99", "#DDCC77", "#117733"};
  static_assert(std::size(kColours) == kPaletteSize);
  return kColours[i % kPaletteSize];
}

}  // namespace warpsim
