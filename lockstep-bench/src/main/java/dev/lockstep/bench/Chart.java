package dev.lockstep.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;

/**
 * Draws p50 and p99 latency against load for each mode of one scenario, as a PNG. The x value of
 * a fixed-load run is its offered load; of a maximum-throughput run, the throughput it reached.
 */
final class Chart {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = 180;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final Map<String, Color> COLORS =
            Map.of("echo", new Color(0x2b8a3e), "per-command", new Color(0xc92a2a), "lockstep", new Color(0x1864ab));

    private Chart() {
    }

    static void draw(String scenario, List<BenchResult> all, Path file) throws IOException {
        List<BenchResult> results = all.stream().filter(r -> r.p99Ms() != null).toList();
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        double maxX = results.stream().mapToDouble(Chart::x).max().orElse(1) * 1.1;
        double maxY = Math.max(10, results.stream().mapToDouble(BenchResult::p99Ms).max().orElse(10));
        double logMaxY = Math.log10(maxY * 2);
        double logMinY = Math.log10(0.5);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("lockstep bench: latency vs load (" + scenario + ")", LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        g.drawRect(LEFT, TOP, plotW, plotH);
        for (double y = 1; y <= maxY * 2; y *= 10) {
            int py = TOP + plotH - (int) ((Math.log10(y) - logMinY) / (logMaxY - logMinY) * plotH);
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, py, LEFT + plotW, py);
            g.setColor(Color.BLACK);
            g.drawString(String.format("%.0f ms", y), 20, py + 4);
        }
        for (int i = 0; i <= 5; i++) {
            double x = maxX * i / 5;
            int px = LEFT + (int) (plotW * i / 5.0);
            g.drawString(String.format("%.0f", x), px - 15, TOP + plotH + 18);
        }
        g.drawString("commands/s (offered load; for the max-throughput run, reached)", LEFT + 120, HEIGHT - 15);
        Map<String, List<BenchResult>> byMode = results.stream().collect(Collectors.groupingBy(BenchResult::mode));
        int legend = TOP + 10;
        for (Map.Entry<String, List<BenchResult>> mode : byMode.entrySet()) {
            Color color = COLORS.getOrDefault(mode.getKey(), Color.DARK_GRAY);
            List<BenchResult> points = mode.getValue().stream().sorted(Comparator.comparingDouble(Chart::x)).toList();
            plot(g, points, color, true, maxX, logMinY, logMaxY, plotW, plotH);
            plot(g, points, color, false, maxX, logMinY, logMaxY, plotW, plotH);
            g.setColor(color);
            g.drawString(mode.getKey() + " p99 (solid)", LEFT + plotW + 15, legend);
            g.drawString(mode.getKey() + " p50 (dashed)", LEFT + plotW + 15, legend + 15);
            legend += 40;
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }

    private static void plot(Graphics2D g, List<BenchResult> points, Color color, boolean p99, double maxX,
            double logMinY, double logMaxY, int plotW, int plotH) {
        g.setColor(color);
        g.setStroke(p99 ? new BasicStroke(2.5f)
                : new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
        int lastX = -1;
        int lastY = -1;
        for (BenchResult r : points) {
            double y = Math.max(0.5, p99 ? r.p99Ms() : r.p50Ms());
            int px = LEFT + (int) (x(r) / maxX * plotW);
            int py = TOP + plotH - (int) ((Math.log10(y) - logMinY) / (logMaxY - logMinY) * plotH);
            g.fillOval(px - 3, py - 3, 6, 6);
            if (lastX >= 0) {
                g.drawLine(lastX, lastY, px, py);
            }
            lastX = px;
            lastY = py;
        }
        g.setStroke(new BasicStroke(1));
    }

    private static double x(BenchResult r) {
        return r.offeredPerS() != null ? r.offeredPerS() : r.commandsPerS();
    }
}
