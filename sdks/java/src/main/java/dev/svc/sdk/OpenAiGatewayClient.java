package dev.svc.sdk;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.RequestOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * openai-java's OkHttp transport with the gateway link headers added to each request attempt, read from the
 * context of the thread that sends it (the calling thread, for the blocking client and its retries). Kept apart
 * from {@link SvcGateway} so that {@link SvcGateway#headers()} needs no openai-java on the classpath.
 */
final class OpenAiGatewayClient implements HttpClient {
    private final HttpClient delegate;

    private OpenAiGatewayClient(HttpClient delegate) {
        this.delegate = delegate;
    }

    static OpenAIClient create(String baseUrl, String apiKey) {
        HttpClient transport = new OpenAiGatewayClient(OkHttpClient.builder().build());
        return new OpenAIClientImpl(ClientOptions.builder().httpClient(transport).baseUrl(baseUrl).apiKey(apiKey).build());
    }

    /** The request with the link headers it does not already carry (headers the caller set win). */
    static HttpRequest linked(HttpRequest request) {
        HttpRequest.Builder builder = request.toBuilder();
        for (Map.Entry<String, String> header : SvcGateway.headers().entrySet()) {
            if (request.headers().values(header.getKey()).isEmpty()) builder.putHeader(header.getKey(), header.getValue());
        }
        return builder.build();
    }

    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions requestOptions) {
        return delegate.execute(linked(request), requestOptions);
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions requestOptions) {
        return delegate.executeAsync(linked(request), requestOptions);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
