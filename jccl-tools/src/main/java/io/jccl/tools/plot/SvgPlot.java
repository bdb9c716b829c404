package io.jccl.tools.plot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws bus bandwidth against message size as a standalone SVG file that browsers display: a log₂ size axis labelled
 * in bytes (1K, 1M, ...), a linear bandwidth axis with round ticks, one coloured line with markers per series (each
 * marker's tooltip gives size and bandwidth), a legend and a title. Plain text generation: SVG is a small XML
 * dialect and needs no charting library. Stateless; called by rank 0 of {@code jccl perf --plot} and by
 * {@code jccl plot}.
 */
public final class SvgPlot {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    private static final int WIDTH = 960;
    private static final int HEIGHT = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = 250;
    private static final int TOP = 60;
    private static final int BOTTOM = 70;

    private SvgPlot() {
    }

    /** The SVG document for {@code series} under {@code title}. */
    public static String render(String title, List<Series> series) {
        long minSize = Long.MAX_VALUE;
        long maxSize = 1;
        double maxBw = 0;
        for (Series s : series) {
            for (Series.Point p : s.points()) {
                minSize = Math.min(minSize, Math.max(1, p.sizeBytes()));
                maxSize = Math.max(maxSize, p.sizeBytes());
                maxBw = Math.max(maxBw, p.busBwGBps());
            }
        }
        if (minSize == Long.MAX_VALUE) {
            minSize = 1;
        }
        double x0 = log2(minSize);
        double x1 = Math.max(log2(maxSize), x0 + 1);
        double yStep = niceStep(maxBw > 0 ? maxBw : 1);
        double yMax = Math.ceil((maxBw > 0 ? maxBw : 1) / yStep) * yStep;
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH,
                        HEIGHT));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"30\" font-size=\"16\" font-weight=\"bold\">%s</text>%n",
                LEFT, escape(title)));
        for (double y = 0; y <= yMax + yStep / 2; y += yStep) {
            double py = TOP + plotH - y / yMax * plotH;
            b.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>%n",
                    LEFT, py, LEFT + plotW, py));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, py + 4, number(y)));
        }
        int every = (int) Math.max(1, Math.ceil((x1 - x0) / 16));
        for (int e = (int) Math.ceil(x0); e <= (int) Math.floor(x1); e++) {
            double px = LEFT + (e - x0) / (x1 - x0) * plotW;
            b.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e0e0e0\"/>%n",
                    px, TOP, px, TOP + plotH));
            if ((e - (int) Math.ceil(x0)) % every == 0) {
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", px,
                        TOP + plotH + 18, size(1L << Math.min(62, Math.max(0, e)))));
            }
        }
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#333\"/>%n", LEFT, TOP, plotW, plotH));
        b.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (bytes)</text>%n",
                LEFT + plotW / 2, HEIGHT - 25));
        b.append(String.format(Locale.ROOT,
                "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 20 %d)\">"
                + "bus bandwidth (GB/s)</text>%n", TOP + plotH / 2, TOP + plotH / 2));
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String color = COLORS[i % COLORS.length];
            List<String> coords = new ArrayList<>();
            StringBuilder marks = new StringBuilder();
            for (Series.Point p : s.points()) {
                double px = LEFT + (log2(Math.max(1, p.sizeBytes())) - x0) / (x1 - x0) * plotW;
                double py = TOP + plotH - Math.max(0, p.busBwGBps()) / yMax * plotH;
                coords.add(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
                marks.append(String.format(Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s: "
                        + "%s bytes, %s GB/s</title></circle>%n", px, py, color, escape(s.label()), p.sizeBytes(),
                        number(p.busBwGBps())));
            }
            b.append(String.format(Locale.ROOT,
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
                    color, String.join(" ", coords)));
            b.append(marks);
            int ly = TOP + 10 + i * 20;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"3\"/>%n", LEFT + plotW + 15, ly, LEFT + plotW + 40, ly, color));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 46, ly + 4,
                    escape(s.label())));
        }
        b.append("</svg>\n");
        return b.toString();
    }

    /** 1, 2 or 5 times a power of ten, giving about five ticks up to {@code max}. */
    static double niceStep(double max) {
        double raw = max / 5;
        double pow = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / pow;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * pow;
    }

    /** Sizes as nccl-tests users write them: 8, 1K, 64K, 1M, 2G. */
    static String size(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "G";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "M";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "K";
        }
        return Long.toString(bytes);
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e12) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 10 ? "%.1f" : "%.3g", v);
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
