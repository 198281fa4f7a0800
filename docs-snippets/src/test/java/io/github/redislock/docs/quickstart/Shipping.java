package io.github.redislock.docs.quickstart;

/** What the quick start's service calls under the lock. */
public interface Shipping {

	Shipment ship(long orderId);

}
