package dev.svc.sdk;

/** How a score's value is read. */
public enum ScoreDataType {
    NUMERIC,
    CATEGORICAL,
    BOOLEAN,
    TEXT
}
