package io.github.redislock.docs.quickstart;

/** The quick start's result type. */
public record Shipment(long orderId) {
}
