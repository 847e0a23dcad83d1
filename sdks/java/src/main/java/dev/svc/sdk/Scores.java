package dev.svc.sdk;

/** Scores under {@code /api/public/scores}. Reached through {@link SvcClient#scores()}. */
public final class Scores {
    private final ApiTransport transport;

    Scores(ApiTransport transport) {
        this.transport = transport;
    }

    /** Records the score (or updates the one with its id) and answers its id. */
    public String create(NewScore score) {
        return transport.send("POST", "/api/public/scores", score.body(), true).path("id").asText(score.id());
    }

    /** One score by id; a {@link SvcApiException} with status 404 when there is none. */
    public Score get(String id) {
        return Json.read(transport.get("/api/public/v2/scores/" + ApiTransport.segment(id)), Score.class);
    }
}
