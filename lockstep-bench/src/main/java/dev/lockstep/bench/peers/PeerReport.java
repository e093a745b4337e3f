package dev.lockstep.bench.peers;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/** The peers' figures as a table on the console and as bar charts in a PNG. */
final class PeerReport {

    private static final int PANEL_WIDTH = 420;
    private static final int HEIGHT = 420;
    private static final int TOP = 60;
    private static final int BOTTOM = 80;
    private static final Color[] COLORS = {new Color(0x1864ab), new Color(0x868e96), new Color(0x2b8a3e),
        new Color(0xe67700), new Color(0xc92a2a)};

    private PeerReport() {
    }

    static void print(List<PeerWorkload.Figures> figures, List<String> skipped, PeerBench.Options options,
            PrintWriter out) {
        out.println();
        out.printf("%-10s %12s %12s %11s %11s %14s %12s %12s %7s%n", "system", "acquire p50", "acquire p99",
                "pair p50", "pair p99", options.callers().get(0) + " callers/s", "pair p50", "pair p99", "errors");
        for (PeerWorkload.Figures f : figures) {
            out.printf(Locale.ROOT, "%-10s %9.2f ms %9.2f ms %8.2f ms %8.2f ms %14.0f %9.2f ms %9.2f ms %7d%n", f.peer(),
                    f.acquireP50Ms(), f.acquireP99Ms(), f.pairP50Ms(), f.pairP99Ms(), f.concurrentPairsPerS(),
                    f.concurrentPairP50Ms(), f.concurrentPairP99Ms(), f.errors());
        }
        out.println("(one caller: " + options.sequentialPairs() + " acquire + release pairs, one after another; "
                + options.callers().get(0) + " callers: pairs per second over " + options.concurrentFor().toSeconds()
                + " s, each on a resource of its own)");
        figures.forEach(f -> out.println("  " + f.peer() + ": " + f.described()));
        skipped.forEach(reason -> out.println("  " + reason));
        if (options.callers().size() > 1) {
            out.println();
            out.printf("%-10s %8s %10s %11s %11s %18s%n", "system", "callers", "pairs/s", "pair p50", "pair p99",
                    "CPU ms / pair");
            for (PeerWorkload.Figures f : figures) {
                for (PeerWorkload.Concurrent c : f.curve()) {
                    out.printf(Locale.ROOT, "%-10s %8d %10.0f %8.2f ms %8.2f ms %18.3f%n", f.peer(), c.callers(),
                            c.pairsPerS(), c.pairP50Ms(), c.pairP99Ms(), c.cpuMsPerPair());
                }
            }
            out.println("(CPU: user + system seconds of this process, which holds the callers' client (and lockstep's "
                    + "worker and broker), and of the system's server processes (PostgreSQL's for lockstep))");
        }
        out.flush();
    }

    static void printContended(List<ContendedWorkload.Figures> contended, List<PeerWorkload.Figures> figures,
            PeerBench.Options options, PrintWriter out) {
        if (contended.isEmpty()) {
            return;
        }
        out.println();
        out.printf("%-10s %8s %14s %14s %14s %12s %7s%n", "system", "callers", "hand-overs/s", "hand-over p50",
                "hand-over p99", "out of order", "errors");
        for (ContendedWorkload.Figures f : contended) {
            out.printf(Locale.ROOT, "%-10s %8d %14.0f %11.2f ms %11.2f ms %12s %7d%n", f.peer(), f.callers(),
                    f.handOversPerS(), f.handOverP50Ms(), f.handOverP99Ms(),
                    f.outOfOrder() < 0 ? "-" : f.outOfOrder() + " of " + f.grants(), f.errors());
        }
        out.println("(all callers on one resource, each holding it 1 ms, for " + options.concurrentFor().toSeconds()
                + " s; hand-over: the holder's release sent -> the next holder's grant received; out of order: grants "
                + "made while a caller that sent its acquire earlier still waited; echo is no lock: its rate only)");
        figures.stream().filter(f -> f.peer().equals("lockstep")).findFirst().ifPresent(lockstep ->
                contended.stream().filter(f -> f.peer().equals("lockstep")).forEach(f -> out.printf(Locale.ROOT,
                        "  lockstep, %d callers: hand-over p50 is %.2fx its uncontended acquire p50 (%.2f ms)%n",
                        f.callers(), f.handOverP50Ms() / lockstep.acquireP50Ms(), lockstep.acquireP50Ms())));
        out.flush();
    }

    static void chart(List<PeerWorkload.Figures> figures, int callers, Path file) throws IOException {
        BufferedImage image = new BufferedImage(PANEL_WIDTH * 3, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        panel(g, 0, "one caller: acquire p50 / p99 (ms)", figures, PeerWorkload.Figures::acquireP50Ms,
                PeerWorkload.Figures::acquireP99Ms);
        panel(g, PANEL_WIDTH, callers + " callers: acquire + release pairs/s", figures,
                PeerWorkload.Figures::concurrentPairsPerS, f -> Double.NaN);
        panel(g, 2 * PANEL_WIDTH, callers + " callers: pair p50 / p99 (ms)", figures, PeerWorkload.Figures::concurrentPairP50Ms,
                PeerWorkload.Figures::concurrentPairP99Ms);
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    /** Pairs per second and the pair's p99 against the count of callers (log scales), a line per system. */
    static void curveChart(List<PeerWorkload.Figures> figures, Path file) throws IOException {
        BufferedImage image = new BufferedImage(PANEL_WIDTH * 2 + 160, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        curvePanel(g, 0, "pairs/s against callers (log scales)", figures, PeerWorkload.Concurrent::pairsPerS);
        curvePanel(g, PANEL_WIDTH, "pair p99 (ms) against callers (log scales)", figures,
                PeerWorkload.Concurrent::pairP99Ms);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int i = 0; i < figures.size(); i++) {
            g.setColor(COLORS[i % COLORS.length]);
            g.fillRect(2 * PANEL_WIDTH + 10, TOP + 20 * i, 14, 10);
            g.setColor(Color.BLACK);
            g.drawString(figures.get(i).peer(), 2 * PANEL_WIDTH + 30, TOP + 20 * i + 10);
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static void curvePanel(Graphics2D g, int left, String title, List<PeerWorkload.Figures> figures,
            ToDoubleFunction<PeerWorkload.Concurrent> y) {
        List<PeerWorkload.Concurrent> all = figures.stream().flatMap(f -> f.curve().stream()).toList();
        double minX = Math.log(all.stream().mapToInt(PeerWorkload.Concurrent::callers).min().orElse(1));
        double maxX = Math.log(all.stream().mapToInt(PeerWorkload.Concurrent::callers).max().orElse(2));
        double minY = Math.log(all.stream().mapToDouble(y).filter(v -> v > 0).min().orElse(1) / 1.5);
        double maxY = Math.log(all.stream().mapToDouble(y).filter(v -> v > 0).max().orElse(10) * 1.5);
        int plotLeft = left + 60;
        int plotWidth = PANEL_WIDTH - 90;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, left + 20, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawLine(plotLeft, HEIGHT - BOTTOM, plotLeft + plotWidth, HEIGHT - BOTTOM);
        g.drawLine(plotLeft, TOP, plotLeft, HEIGHT - BOTTOM);
        all.stream().mapToInt(PeerWorkload.Concurrent::callers).distinct().forEach(callers -> g.drawString(
                Integer.toString(callers), plotLeft + scale(Math.log(callers), minX, maxX, plotWidth) - 6,
                HEIGHT - BOTTOM + 16));
        for (double tick = Math.exp(minY); tick <= Math.exp(maxY); tick *= 10) {
            double rounded = Math.pow(10, Math.ceil(Math.log10(tick)));
            int at = HEIGHT - BOTTOM - scale(Math.log(rounded), minY, maxY, plotHeight);
            if (at >= TOP) {
                g.drawString(String.format(Locale.ROOT, "%,.0f", rounded), left + 5, at + 4);
            }
        }
        for (int i = 0; i < figures.size(); i++) {
            g.setColor(COLORS[i % COLORS.length]);
            List<PeerWorkload.Concurrent> curve = figures.get(i).curve().stream()
                    .filter(c -> y.applyAsDouble(c) > 0).toList();
            for (int j = 0; j < curve.size(); j++) {
                int x = plotLeft + scale(Math.log(curve.get(j).callers()), minX, maxX, plotWidth);
                int yy = HEIGHT - BOTTOM - scale(Math.log(y.applyAsDouble(curve.get(j))), minY, maxY, plotHeight);
                g.fillOval(x - 3, yy - 3, 6, 6);
                if (j > 0) {
                    int px = plotLeft + scale(Math.log(curve.get(j - 1).callers()), minX, maxX, plotWidth);
                    int py = HEIGHT - BOTTOM - scale(Math.log(y.applyAsDouble(curve.get(j - 1))), minY, maxY, plotHeight);
                    g.drawLine(px, py, x, yy);
                }
            }
        }
    }

    private static int scale(double value, double min, double max, int length) {
        return max <= min ? length / 2 : (int) Math.round((value - min) / (max - min) * length);
    }

    /** One panel: a bar per system (solid), and a second, outlined, where {@code second} has a value. */
    private static void panel(Graphics2D g, int left, String title, List<PeerWorkload.Figures> figures,
            ToDoubleFunction<PeerWorkload.Figures> first, ToDoubleFunction<PeerWorkload.Figures> second) {
        double max = figures.stream().mapToDouble(f -> Math.max(value(first, f), value(second, f))).max().orElse(1);
        max = max <= 0 ? 1 : max * 1.15;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, left + 20, 30);
        g.drawLine(left + 40, HEIGHT - BOTTOM, left + PANEL_WIDTH - 20, HEIGHT - BOTTOM);
        int slot = (PANEL_WIDTH - 70) / Math.max(1, figures.size());
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int i = 0; i < figures.size(); i++) {
            PeerWorkload.Figures f = figures.get(i);
            int x = left + 50 + i * slot;
            int width = slot / 3;
            Color color = COLORS[i % COLORS.length];
            bar(g, x, width, value(first, f), max, plotHeight, color, true);
            if (!Double.isNaN(second.applyAsDouble(f))) {
                bar(g, x + width + 2, width, value(second, f), max, plotHeight, color, false);
            }
            g.setColor(Color.BLACK);
            g.drawString(f.peer(), x, HEIGHT - BOTTOM + 18);
        }
    }

    private static void bar(Graphics2D g, int x, int width, double value, double max, int plotHeight, Color color,
            boolean solid) {
        int height = (int) Math.round(value / max * plotHeight);
        int y = HEIGHT - BOTTOM - height;
        g.setColor(color);
        if (solid) {
            g.fillRect(x, y, width, height);
        } else {
            g.drawRect(x, y, width, height);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawString(value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value),
                x, y - 4);
    }

    private static double value(ToDoubleFunction<PeerWorkload.Figures> of, PeerWorkload.Figures f) {
        double value = of.applyAsDouble(f);
        return Double.isNaN(value) ? 0 : value;
    }
}
