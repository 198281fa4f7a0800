package io.github.redislock.docs.quickstart;

// tag::test[]
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import io.github.redislock.testsupport.AutoConfigureTestRedis;
import io.github.redislock.testsupport.LockRecorder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;

@SpringBootTest
@AutoConfigureTestRedis
class OrderServiceTest {

	@Autowired
	OrderService orders;

	@Autowired
	LockRecorder locks;

	@MockitoBean
	Shipping shipping;

	@Test
	void shipsUnderTheOrdersLock() {
		given(shipping.ship(42)).willReturn(new Shipment(42));

		Shipment shipment = locks.assertHeldDuring("OrderService.ship:42", () -> orders.ship(42));

		assertThat(shipment.orderId()).isEqualTo(42);
		assertThat(locks.isHeld("OrderService.ship:42")).isFalse();
	}

	@Test
	void callsShippingWhileHoldingTheLock() {
		given(shipping.ship(7)).willAnswer((call) -> {
			assertThat(locks.isHeld("OrderService.ship:7")).isTrue();
			return new Shipment(7);
		});

		orders.ship(7);

		assertThat(locks.acquired()).containsExactly("OrderService.ship:7");
	}

}
// end::test[]
