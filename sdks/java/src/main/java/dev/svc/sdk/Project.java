package dev.svc.sdk;

import java.util.Map;

/** The project a key pair belongs to (GET /api/public/projects). */
public record Project(String id, String name, Organization organization, Map<String, Object> metadata) {
    /** The organization that holds the project. */
    public record Organization(String id, String name) {}
}
