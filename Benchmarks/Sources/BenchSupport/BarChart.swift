import Foundation

/// A grouped horizontal bar chart as a standalone SVG: one group per
/// workload, one bar per contender, a dashed line at a reference value (1.0
/// for ratios to a baseline). Written next to a benchmark's markdown table
/// so that a reader sees the ratios at a glance.
public struct BarChart {
    /// One workload's bars.
    public struct Group {
        /// The workload's name, above its bars.
        public var label: String
        /// Contender name and value, in the order drawn.
        public var bars: [(name: String, value: Double)]

        /// A group of bars under `label`.
        public init(label: String, bars: [(name: String, value: Double)]) {
            self.label = label
            self.bars = bars
        }
    }

    /// The heading.
    public var title: String
    /// What the values are, under the title ("CPU per request, × raw libcurl").
    public var caption: String
    /// The workloads, top to bottom.
    public var groups: [Group]
    /// Where the dashed reference line goes; nil for none.
    public var reference: Double?
    /// The axis ends here at most: a longer bar is cut at the edge and its
    /// label marked with "›", so that one outlier does not flatten the rest.
    public var cap: Double?

    /// A chart; `reference` draws the baseline (1.0 for ratios), `cap` ends the axis.
    public init(title: String, caption: String, groups: [Group], reference: Double? = 1, cap: Double? = nil) {
        self.title = title
        self.caption = caption
        self.groups = groups
        self.reference = reference
        self.cap = cap
    }

    /// The chart as SVG text. Bars are labelled with their value; values that
    /// are not finite are drawn as "n/a" without a bar.
    public func svg() -> String {
        let names = groups.flatMap { $0.bars.map(\.name) }.reduce(into: [String]()) { seen, name in
            if !seen.contains(name) { seen.append(name) }
        }
        let palette = [
            "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c755f", "#bab0ac",
        ]
        func color(_ name: String) -> String { palette[(names.firstIndex(of: name) ?? 0) % palette.count] }

        // Room for the longest name at about 6.6 px a character (12 px sans-serif).
        let labelWidth = max(200, Double(names.map(\.count).max() ?? 0) * 6.6 + 36)
        let plotWidth = 520.0
        let barHeight = 16.0
        let groupGap = 18.0
        let top = 64.0
        let largest = groups.flatMap { $0.bars.map(\.value) }.filter(\.isFinite).max() ?? 1
        let axisEnd = min(largest, cap ?? .infinity)
        let scaleMax = max(axisEnd, reference ?? 0) * 1.1
        func x(_ value: Double) -> Double { labelWidth + plotWidth * min(value, scaleMax) / scaleMax }

        var body: [String] = []
        var y = top
        for group in groups {
            body.append(text(group.label, x: 8, y: y + 12, weight: "bold"))
            y += 18
            for bar in group.bars {
                body.append(text(bar.name, x: 24, y: y + barHeight - 4))
                if bar.value.isFinite {
                    body.append(
                        "<rect x=\"\(f(labelWidth))\" y=\"\(f(y))\" width=\"\(f(x(bar.value) - labelWidth))\" "
                            + "height=\"\(f(barHeight - 2))\" fill=\"\(color(bar.name))\"/>")
                    let cut = bar.value > scaleMax
                    body.append(
                        text(
                            String(format: "%.2f", bar.value) + (cut ? " ›" : ""), x: x(bar.value) + 4,
                            y: y + barHeight - 4, weight: cut ? "bold" : "normal"))
                } else {
                    body.append(text("n/a", x: labelWidth + 4, y: y + barHeight - 4))
                }
                y += barHeight
            }
            y += groupGap
        }
        let height = y + 8
        if let reference {
            body.append(
                "<line x1=\"\(f(x(reference)))\" y1=\"\(f(top - 6))\" x2=\"\(f(x(reference)))\" y2=\"\(f(height - 16))\" "
                    + "stroke=\"#333\" stroke-dasharray=\"4 3\"/>")
            body.append(text(String(format: "%.1f", reference), x: x(reference) - 8, y: top - 10))
        }
        let width = labelWidth + plotWidth + 60
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" \
            viewBox="0 0 \(f(width)) \(f(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            \(text(title, x: 8, y: 20, weight: "bold", size: 15))
            \(text(caption, x: 8, y: 40))
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    /// Writes the SVG to `url`.
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(svg().utf8).write(to: url, options: .atomic)
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func text(_ string: String, x: Double, y: Double, weight: String = "normal", size: Int = 12)
        -> String
    {
        let escaped = string.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        return
            "<text x=\"\(f(x))\" y=\"\(f(y))\" font-weight=\"\(weight)\" font-size=\"\(size)\">\(escaped)</text>"
    }
}
