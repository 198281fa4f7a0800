package io.github.redislock.sample.ops;

import java.util.UUID;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees of the sample's locks over HTTP: the {@code locks} endpoint's
 * JSON while a lock is held, one lock's holders, the {@code redis.lock.*} meters after a
 * reservation, and no forced release unless switched on.
 */
@SampleAppTest
class LockObservabilityTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private RedisLockClient locks;

	private final String sku = "sku-" + UUID.randomUUID();

	@Test
	void theLocksEndpointListsAHeldLock() {
		RedisLock lock = this.locks.getLock("stock:" + this.sku);
		lock.lock();
		try {
			assertThat(this.mvc.get().uri("/actuator/locks")).hasStatusOk().bodyJson().satisfies((json) -> {
				json.assertThat().extractingPath("$.held[0].name").isEqualTo("stock:" + this.sku);
				json.assertThat().extractingPath("$.held[0].key").isEqualTo("sample:lock:{stock:" + this.sku + "}");
				json.assertThat().extractingPath("$.held[0].holdCount").isEqualTo(1);
				json.assertThat().extractingPath("$.held[0].watchdog").isEqualTo(true);
				json.assertThat().extractingPath("$.held[0].fencingToken").isEqualTo(lock.fencingToken());
				json.assertThat().extractingPath("$.held[0].remainingLeaseMs").asNumber().isNotNull();
				json.assertThat().extractingPath("$.held[0].heldSince").asString().endsWith("Z");
				json.assertThat().extractingPath("$.waiting").isEqualTo(java.util.Map.of());
			});
		}
		finally {
			lock.unlock();
		}
		assertThat(this.mvc.get().uri("/actuator/locks")).bodyJson().extractingPath("$.held").asArray().isEmpty();
	}

	@Test
	void oneLockShowsWhoHoldsIt() {
		RedisLock lock = this.locks.getLock("stock:" + this.sku);
		lock.lock();
		try {
			assertThat(this.mvc.get().uri("/actuator/locks/stock:{sku}", this.sku)).hasStatusOk()
				.bodyJson()
				.satisfies((json) -> {
					json.assertThat().extractingPath("$.locked").isEqualTo(true);
					json.assertThat().extractingPath("$.holders[0].thisInstance").isEqualTo(true);
					json.assertThat().extractingPath("$.holders[0].holdCount").isEqualTo(1);
					json.assertThat().extractingPath("$.fencingToken").isEqualTo(lock.fencingToken());
					json.assertThat().extractingPath("$.heldHere[0].name").isEqualTo("stock:" + this.sku);
					json.assertThat().extractingPath("$.waitingHere").isEqualTo(0);
				});
		}
		finally {
			lock.unlock();
		}
		assertThat(this.mvc.get().uri("/actuator/locks/stock:{sku}", this.sku)).bodyJson()
			.extractingPath("$.locked")
			.isEqualTo(false);
	}

	@Test
	void aReservationShowsUpInTheLockMetersByLockName() {
		assertThat(this.mvc.post()
			.uri("/stock/{sku}/restock", this.sku)
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"quantity\": 5}")).hasStatusOk();
		assertThat(this.mvc.post()
			.uri("/stock/{sku}/reservations", this.sku)
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"quantity\": 1}")).hasStatus2xxSuccessful();
		assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.acquire?tag=name:stock&tag=outcome:acquired"))
			.hasStatusOk()
			.bodyJson()
			.extractingPath("$.measurements[?(@.statistic == 'COUNT')].value")
			.asArray()
			.singleElement()
			.satisfies((count) -> assertThat(((Number) count).intValue()).isGreaterThanOrEqualTo(2));
		assertThat(this.mvc.get().uri("/actuator/metrics/redis.lock.held")).hasStatusOk();
	}

	@Test
	void forcedReleaseIsOffByDefault() {
		RedisLock lock = this.locks.getLock("stock:" + this.sku);
		lock.lock();
		try {
			assertThat(this.mvc.delete().uri("/actuator/locks/stock:{sku}", this.sku))
				.hasStatus(HttpStatus.METHOD_NOT_ALLOWED);
			assertThat(lock.isHeldByCurrentThread()).isTrue();
		}
		finally {
			lock.unlock();
		}
	}

}
