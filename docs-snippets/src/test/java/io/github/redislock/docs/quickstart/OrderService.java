package io.github.redislock.docs.quickstart;

import org.springframework.stereotype.Service;

import io.github.redislock.annotation.DistributedLock;

// tag::service[]
@Service
public class OrderService {

	private final Shipping shipping;

	public OrderService(Shipping shipping) {
		this.shipping = shipping;
	}

	// One call at a time per order id, across every instance of the service.
	// The lock is "OrderService.ship:<orderId>", its Redis key
	// "lock:{OrderService.ship:<orderId>}".
	@DistributedLock(key = "#orderId")
	public Shipment ship(long orderId) {
		// runs while the lock is held; released on return or throw
		return shipping.ship(orderId);
	}

}
// end::service[]
