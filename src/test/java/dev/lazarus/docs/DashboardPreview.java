package dev.lazarus.docs;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the Grafana dashboard ({@code src/main/grafana/lazarus-dashboard.json}) from a real Prometheus's data, for
 * the operator's guide's picture: each panel's own queries, run against Prometheus's HTTP API, laid out by the panels' grid
 * positions. Not Grafana (which cannot be installed from this project's registries), but the same queries on the
 * same data, so the picture shows what the dashboard shows.
 *
 * <p>{@code mvn -Pdashboard-preview test-compile exec:java} with {@code -Dpreview.prometheus} (default
 * {@code http://127.0.0.1:9090}, as {@code stack.sh prometheus-up} starts it), {@code -Dpreview.minutes} (30) and
 * {@code -Dpreview.out} ({@code target/dashboard/lazarus-dashboard.png}).
 */
public final class DashboardPreview {

    private static final int COLUMN = 62;
    private static final int ROW = 34;
    private static final Color BACKGROUND = new Color(0x11, 0x12, 0x17);
    private static final Color PANEL = new Color(0x18, 0x1b, 0x1f);
    private static final Color TEXT = new Color(0xcc, 0xcc, 0xdc);
    private static final Color[] LINES = {new Color(0x73, 0xbf, 0x69), new Color(0xf2, 0xcc, 0x0c), new Color(0x57, 0x94, 0xf2),
        new Color(0xff, 0x78, 0x78), new Color(0xb8, 0x77, 0xd9), new Color(0xff, 0x98, 0x30), new Color(0x8a, 0xb8, 0xff)};
    private static final Pattern LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    private final HttpClient http = HttpClient.newHttpClient();
    private final String prometheus;
    private final long end = Instant.now().getEpochSecond();
    private final long start;

    private DashboardPreview(String prometheus, int minutes) {
        this.prometheus = prometheus;
        this.start = end - minutes * 60L;
    }

    public static void main(String[] args) throws Exception {
        Path dashboard = Path.of(System.getProperty("preview.dashboard", "src/main/grafana/lazarus-dashboard.json"));
        Path out = Path.of(System.getProperty("preview.out", "target/dashboard/lazarus-dashboard.png"));
        DashboardPreview preview = new DashboardPreview(System.getProperty("preview.prometheus", "http://127.0.0.1:9090"),
                Integer.getInteger("preview.minutes", 30));
        JsonObject json = Json.createReader(new StringReader(Files.readString(dashboard))).readObject();
        BufferedImage image = preview.draw(json);
        Files.createDirectories(out.toAbsolutePath().getParent());
        ImageIO.write(image, "png", out.toFile());
        System.out.println("Dashboard drawn from " + preview.prometheus + " into " + out);
    }

    private BufferedImage draw(JsonObject dashboard) throws IOException, InterruptedException {
        List<JsonObject> panels = dashboard.getJsonArray("panels").getValuesAs(JsonObject.class);
        int rows = panels.stream().mapToInt(p -> p.getJsonObject("gridPos").getInt("y") + p.getJsonObject("gridPos").getInt("h")).max().orElse(1);
        BufferedImage image = new BufferedImage(24 * COLUMN + 8, rows * ROW + 44, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(BACKGROUND);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(dashboard.getString("title") + "  ·  last " + (end - start) / 60 + " minutes  ·  " + Instant.ofEpochSecond(end), 10, 26);
        for (JsonObject panel : panels) {
            JsonObject grid = panel.getJsonObject("gridPos");
            int x = 4 + grid.getInt("x") * COLUMN;
            int y = 40 + grid.getInt("y") * ROW;
            int w = grid.getInt("w") * COLUMN - 6;
            int h = grid.getInt("h") * ROW - 6;
            BufferedImage drawn = "stat".equals(panel.getString("type")) ? stat(panel, w, h) : timeseries(panel, w, h);
            g.drawImage(drawn, x, y, null);
        }
        g.dispose();
        return image;
    }

    private BufferedImage stat(JsonObject panel, int w, int h) throws IOException, InterruptedException {
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        JsonObject target = panel.getJsonArray("targets").getJsonObject(0);
        JsonArray result = query("/api/v1/query?query=" + encode(target.getString("expr")) + "&time=" + end);
        Double value = result.isEmpty() ? null : Double.valueOf(result.getJsonObject(0).getJsonArray("value").getString(1));
        JsonObject defaults = panel.getJsonObject("fieldConfig").getJsonObject("defaults");
        g.setColor(value == null || value.isNaN() ? PANEL : thresholdColor(defaults, value));
        g.fillRect(0, 0, w, h);
        g.setColor(Color.WHITE);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.drawString(panel.getString("title"), 10, 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 34));
        g.drawString(format(value, defaults.getString("unit", "")), 10, h - 20);
        g.dispose();
        return image;
    }

    private BufferedImage timeseries(JsonObject panel, int w, int h) throws IOException, InterruptedException {
        XYChart chart = new XYChartBuilder().width(w).height(h).title(panel.getString("title")).build();
        var styler = chart.getStyler();
        styler.setChartBackgroundColor(PANEL);
        styler.setPlotBackgroundColor(PANEL);
        styler.setPlotBorderVisible(false);
        styler.setChartFontColor(TEXT);
        styler.setAxisTickLabelsColor(TEXT);
        styler.setLegendBackgroundColor(PANEL);
        styler.setLegendBorderColor(PANEL);
        styler.setLegendPosition(Styler.LegendPosition.InsideNW);
        styler.setChartTitleBoxVisible(false);
        styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        styler.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        chart.getStyler().setPlotGridLinesColor(new Color(0x2c, 0x30, 0x35));
        chart.getStyler().setDatePattern("HH:mm");
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setSeriesColors(LINES);
        long step = Math.max(15, (end - start) / 120);
        int series = 0;
        for (JsonObject target : panel.getJsonArray("targets").getValuesAs(JsonObject.class)) {
            JsonArray result = query("/api/v1/query_range?query=" + encode(target.getString("expr")) + "&start=" + start + "&end=" + end + "&step=" + step);
            for (JsonObject item : result.getValuesAs(JsonObject.class)) {
                List<Date> times = new ArrayList<>();
                List<Double> values = new ArrayList<>();
                for (JsonValue point : item.getJsonArray("values")) {
                    double value = Double.parseDouble(point.asJsonArray().getString(1));
                    if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                        times.add(new Date(point.asJsonArray().getJsonNumber(0).longValue() * 1000));
                        values.add(value);
                    }
                }
                if (!times.isEmpty()) {
                    XYSeries line = chart.addSeries(legend(target.getString("legendFormat", ""), item.getJsonObject("metric")) + " ".repeat(series++), times, values);
                    line.setMarker(SeriesMarkers.NONE);
                }
            }
        }
        if (series == 0) {
            chart.addSeries("no data", List.of(new Date(start * 1000), new Date(end * 1000)), List.of(0.0, 0.0)).setMarker(SeriesMarkers.NONE);
        }
        return BitmapEncoder.getBufferedImage(chart);
    }

    private JsonArray query(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(prometheus + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(path + ": " + response.statusCode() + " " + response.body());
        }
        return Json.createReader(new StringReader(response.body())).readObject().getJsonObject("data").getJsonArray("result");
    }

    private static String legend(String format, JsonObject labels) {
        Matcher matcher = LABEL.matcher(format);
        StringBuilder text = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(text, Matcher.quoteReplacement(labels.getString(matcher.group(1), "")));
        }
        matcher.appendTail(text);
        return text.toString().isBlank() ? "value" : text.toString();
    }

    private static Color thresholdColor(JsonObject defaults, double value) {
        Color color = new Color(0x37, 0x87, 0x2d);
        JsonObject thresholds = defaults.getJsonObject("thresholds");
        if (thresholds != null) {
            for (JsonObject step : thresholds.getJsonArray("steps").getValuesAs(JsonObject.class)) {
                if (step.isNull("value") || value >= step.getJsonNumber("value").doubleValue()) {
                    color = switch (step.getString("color")) {
                        case "red" -> new Color(0xc4, 0x16, 0x2a);
                        case "orange" -> new Color(0xe0, 0x7b, 0x00);
                        case "blue" -> new Color(0x1f, 0x60, 0xc4);
                        default -> new Color(0x37, 0x87, 0x2d);
                    };
                }
            }
        }
        return color;
    }

    private static String format(Double value, String unit) {
        if (value == null || value.isNaN()) {
            return "No data";
        }
        if ("s".equals(unit)) {
            long seconds = Math.round(value);
            return seconds >= 3600 ? seconds / 3600 + " h " + seconds % 3600 / 60 + " min" : seconds >= 60 ? seconds / 60 + " min " + seconds % 60 + " s" : seconds + " s";
        }
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%,d", value.longValue()) : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
