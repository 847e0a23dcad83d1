package dev.svc.sdk;

import java.util.List;

/** One page of a list answer: its items and the paging numbers. */
public record Page<T>(List<T> data, Meta meta) {
    /** {@code page} counts from 1; {@code totalPages = ceil(totalItems / limit)}. */
    public record Meta(int page, int limit, int totalItems, int totalPages) {}
}
