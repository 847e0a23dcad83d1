package dev.svc.sdk;

import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.InternalTelemetryVersion;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * OpenTelemetry export to svc: a {@link SpanProcessor} (a {@link BatchSpanProcessor} with a bounded queue over an
 * {@link OtlpHttpSpanExporter}) sending OTLP/HTTP protobuf to {@code {baseUrl}/api/public/otel/v1/traces} with the
 * project key pair. Add it to your tracer provider:
 *
 * <pre>{@code
 * SvcTracing tracing = SvcTracing.fromEnv();
 * SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
 * Tracer tracer = provider.get("my-agent");
 * }</pre>
 *
 * <p>Export never throws into your code: spans that cannot be sent (the service is down, the queue is full) are
 * dropped, counted in {@link #droppedSpans()}, and the first loss is logged once. Spans still queued are sent at
 * {@link #shutdown()} and, unless turned off, when the JVM exits.
 */
public final class SvcTracing {
    /**
     * OpenTelemetry's OTLP/HTTP exporter logs each failed export (with a stack trace, a few a minute); the SDK logs
     * the first loss once instead. Held here: java.util.logging keeps loggers only weakly.
     */
    private static final Logger OTLP_EXPORTER_LOGGER = Logger.getLogger("io.opentelemetry.exporter.otlp.internal.HttpExporter");

    private final String endpoint;
    private final QueueDropReader queueDrops;
    private final DropCountingExporter exporter;
    private final SvcSpanProcessor processor;
    private final Thread exitHook;
    private final AtomicBoolean shutDown = new AtomicBoolean();

    private SvcTracing(Builder b) {
        URI baseUrl = Settings.baseUrl(b.baseUrl, b.env);
        String auth = Base64.getEncoder().encodeToString((Settings.publicKey(b.publicKey, b.env) + ":" + Settings.secretKey(b.secretKey, b.env))
                .getBytes(StandardCharsets.UTF_8));
        this.endpoint = baseUrl + "/api/public/otel/v1/traces";
        this.queueDrops = new QueueDropReader();
        OtlpHttpSpanExporter otlp = OtlpHttpSpanExporter.builder()
                .setEndpoint(endpoint)
                .addHeader("Authorization", "Basic " + auth)
                .setTimeout(b.exportTimeout)
                .build();
        this.exporter = new DropCountingExporter(otlp, endpoint, queueDrops::processorDrops, b.maxExportBatchBytes,
                b.exportTimeout.plusSeconds(2));
        BatchSpanProcessor batch = BatchSpanProcessor.builder(exporter)
                .setMaxQueueSize(b.maxQueueSize)
                .setMaxExportBatchSize(Math.min(b.maxExportBatchSize, b.maxQueueSize))
                .setScheduleDelay(b.scheduleDelay)
                // The OTLP exporter bounds an export, retries included, by exportTimeout; the processor waits a
                // little longer so that it sees the export's own result rather than its own timeout.
                .setExporterTimeout(b.exportTimeout.plusSeconds(2))
                .setMeterProvider(queueDrops.meterProvider())
                .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
                .build();
        this.processor = new SvcSpanProcessor(batch);
        if (!b.exporterLogs && OTLP_EXPORTER_LOGGER.getLevel() == null) OTLP_EXPORTER_LOGGER.setLevel(Level.OFF);
        if (b.flushAtExit) {
            this.exitHook = new Thread(this::shutdownQuietly, "svc-tracing-exit-flush");
            Runtime.getRuntime().addShutdownHook(exitHook);
        } else {
            this.exitHook = null;
        }
    }

    /**
     * Tracing configured from {@code SVC_PUBLIC_KEY}, {@code SVC_SECRET_KEY} and {@code SVC_BASE_URL}.
     *
     * @throws SvcConfigException naming the variable that is missing or malformed
     */
    public static SvcTracing fromEnv() {
        return builder().build();
    }

    /** A builder whose settings default to the environment variables; what it is given overrides them. */
    public static Builder builder() {
        return new Builder(System.getenv());
    }

    /** The processor to add to your {@code SdkTracerProvider}; one per SvcTracing. */
    public SpanProcessor spanProcessor() {
        return processor;
    }

    /** Where spans are sent: {@code {baseUrl}/api/public/otel/v1/traces}. */
    public String endpoint() {
        return endpoint;
    }

    /** Spans lost so far: in exports that failed after the exporter's retries, to a full queue, or ended after shutdown. */
    public long droppedSpans() {
        return exporter.failedSpans() + queueDrops.processorDrops();
    }

    /**
     * Sends the spans ended so far and waits for the export, at most {@code timeout}.
     *
     * @return true when they were all sent; false when an export failed (the spans count as dropped) or time ran out
     */
    public boolean flush(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long ended = processor.endedSpans();
        long droppedBefore = droppedSpans();
        // The batch processor answers a flush as done even when its export failed, and a flush asked for just as
        // the previous one finishes may be answered with that one's result: done is when every span ended before
        // this call has been exported or dropped, and the drop count says whether all were sent.
        while (exporter.completedSpans() + queueDrops.processorDrops() < ended) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) return false;
            processor.forceFlush().join(remaining, TimeUnit.NANOSECONDS);
        }
        return droppedSpans() == droppedBefore;
    }

    /** Sends what is queued (waiting up to the export timeout) and stops; spans ended later are not sent. */
    public void shutdown() {
        if (exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException exiting) {
                // the JVM is already exiting and runs the hook itself
            }
        }
        shutdownQuietly();
    }

    private void shutdownQuietly() {
        if (shutDown.compareAndSet(false, true)) {
            processor.shutdown().join(30, TimeUnit.SECONDS);
            queueDrops.meterProvider().close();
        }
    }

    public static final class Builder {
        private final Map<String, String> env;
        private String publicKey;
        private String secretKey;
        private String baseUrl;
        private int maxQueueSize = 2048;
        private int maxExportBatchSize = 512;
        private long maxExportBatchBytes = 4L * 1024 * 1024;
        private Duration scheduleDelay = Duration.ofSeconds(1);
        private Duration exportTimeout = Duration.ofSeconds(10);
        private boolean flushAtExit = true;
        private boolean exporterLogs = false;

        Builder(Map<String, String> env) {
            this.env = env;
        }

        /** Overrides {@code SVC_PUBLIC_KEY}. */
        public Builder publicKey(String publicKey) {
            this.publicKey = publicKey;
            return this;
        }

        /** Overrides {@code SVC_SECRET_KEY}. */
        public Builder secretKey(String secretKey) {
            this.secretKey = secretKey;
            return this;
        }

        /** Overrides {@code SVC_BASE_URL}: the admin listener, e.g. {@code http://localhost:8081}. */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /** Spans held before export (default 2048); when full, new spans are dropped and counted. */
        public Builder maxQueueSize(int maxQueueSize) {
            if (maxQueueSize < 1) throw new IllegalArgumentException("maxQueueSize must be at least 1");
            this.maxQueueSize = maxQueueSize;
            return this;
        }

        /** Spans per export request (default 512). */
        public Builder maxExportBatchSize(int maxExportBatchSize) {
            if (maxExportBatchSize < 1) throw new IllegalArgumentException("maxExportBatchSize must be at least 1");
            this.maxExportBatchSize = maxExportBatchSize;
            return this;
        }

        /**
         * Bytes per export request at most, estimated before encoding and compression (default 4 MiB). A batch the
         * server refuses with 413 is halved and sent again; a single span it refuses is dropped and logged.
         */
        public Builder maxExportBatchBytes(long maxExportBatchBytes) {
            if (maxExportBatchBytes < 1) throw new IllegalArgumentException("maxExportBatchBytes must be at least 1");
            this.maxExportBatchBytes = maxExportBatchBytes;
            return this;
        }

        /** The longest a span waits in the queue before an export (default 1 s). */
        public Builder scheduleDelay(Duration scheduleDelay) {
            this.scheduleDelay = positive(scheduleDelay, "scheduleDelay");
            return this;
        }

        /** Time allowed for one export, its retries included (default 10 s). */
        public Builder exportTimeout(Duration exportTimeout) {
            this.exportTimeout = positive(exportTimeout, "exportTimeout");
            return this;
        }

        /** Whether to send queued spans when the JVM exits (default true). */
        public Builder flushAtExit(boolean flushAtExit) {
            this.flushAtExit = flushAtExit;
            return this;
        }

        /**
         * Whether OpenTelemetry's OTLP exporter keeps logging its failed exports itself (default false: its
         * java.util.logging logger {@code io.opentelemetry.exporter.otlp.internal.HttpExporter} is set to OFF unless
         * you configured its level, and the SDK's single warning stands for them).
         */
        public Builder exporterLogs(boolean exporterLogs) {
            this.exporterLogs = exporterLogs;
            return this;
        }

        /**
         * @throws SvcConfigException naming the setting (environment variable and builder method) that is missing or
         *     malformed
         */
        public SvcTracing build() {
            return new SvcTracing(this);
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isZero() || d.isNegative()) throw new IllegalArgumentException(what + " must be positive");
            return d;
        }
    }
}
