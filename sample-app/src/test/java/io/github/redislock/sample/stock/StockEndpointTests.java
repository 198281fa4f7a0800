package io.github.redislock.sample.stock;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.OtherInstance;
import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stock endpoints against a real Redis: restocks and reservations change the level in
 * Redis, and a SKU whose lock another instance holds answers 409 with a problem detail
 * naming the lock, whether the lock is taken by the annotation (reservations) or the
 * client (restocks).
 */
@SampleAppTest
class StockEndpointTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private RedisLockProperties lockProperties;

	private final String sku = "sku-" + UUID.randomUUID();

	private OtherInstance otherInstance;

	@BeforeEach
	void connectOtherInstance() {
		this.otherInstance = new OtherInstance(redis, this.lockProperties);
	}

	@AfterEach
	void closeOtherInstance() {
		this.otherInstance.close();
	}

	@Test
	void restockAndReservationChangeTheStockLevelInRedis() {
		assertThat(restock(10)).hasStatusOk()
			.bodyJson()
			.isLenientlyEqualTo("{\"sku\": \"%s\", \"available\": 10}".formatted(this.sku));
		assertThat(reserve(3)).hasStatus(HttpStatus.CREATED)
			.bodyJson()
			.isLenientlyEqualTo("{\"sku\": \"%s\", \"quantity\": 3, \"remaining\": 7}".formatted(this.sku));
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("7");
		assertThat(this.mvc.get().uri("/stock/{sku}", this.sku)).hasStatusOk()
			.bodyJson()
			.isLenientlyEqualTo("{\"available\": 7}");
	}

	@Test
	void reservationOfMoreThanTheStockIsRefusedWith422AndChangesNothing() {
		restock(2);
		assertThat(reserve(3)).hasStatus(HttpStatus.UNPROCESSABLE_CONTENT)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.isLenientlyEqualTo(
					"{\"status\": 422, \"detail\": \"Cannot reserve 3 of '%s': 2 available\"}".formatted(this.sku));
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("2");
	}

	@Test
	void reservationOfNoUnitsIsRejectedWith400() {
		assertThat(reserve(0)).hasStatus(HttpStatus.BAD_REQUEST)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.isLenientlyEqualTo("{\"detail\": \"quantity must be at least 1, was 0\"}");
	}

	@Test
	void reservationWhileAnotherInstanceHoldsTheSkuLockAnswers409ProblemDetailNamingTheLock() {
		restock(5);
		this.otherInstance.whileHolding("stock:" + this.sku,
				() -> assertThat(reserve(1)).hasStatus(HttpStatus.CONFLICT)
					.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
					.bodyJson()
					.isLenientlyEqualTo("""
							{
									  "title": "Conflict",
							  "status": 409,
							  "detail": "Could not acquire lock 'stock:%1$s' within 200ms: another holder kept it",
							  "instance": "/stock/%1$s/reservations",
							  "lock": "stock:%1$s",
							  "waitTime": "PT0.2S"
							}""".formatted(this.sku)));
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("5");
		assertThat(reserve(1)).hasStatus(HttpStatus.CREATED);
	}

	@Test
	void restockWhileAnotherInstanceHoldsTheSkuLockAnswers409ProblemDetailNamingTheLock() {
		this.otherInstance.whileHolding("stock:" + this.sku,
				() -> assertThat(restock(5)).hasStatus(HttpStatus.CONFLICT)
					.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
					.bodyJson()
					.isLenientlyEqualTo("{\"status\": 409, \"lock\": \"stock:%s\"}".formatted(this.sku)));
		assertThat(this.mvc.get().uri("/stock/{sku}", this.sku)).bodyJson().isLenientlyEqualTo("{\"available\": 0}");
	}

	@Test
	void aReactiveReservationChangesTheStockLevelInRedis() {
		restock(4);
		assertThat(reserveReactively(3)).hasStatus(HttpStatus.CREATED)
			.bodyJson()
			.isLenientlyEqualTo("{\"sku\": \"%s\", \"quantity\": 3, \"remaining\": 1}".formatted(this.sku));
		assertThat(reserveReactively(3)).hasStatus(HttpStatus.UNPROCESSABLE_CONTENT)
			.bodyJson()
			.isLenientlyEqualTo("{\"detail\": \"Cannot reserve 3 of '%s': 1 available\"}".formatted(this.sku));
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("1");
	}

	@Test
	void aReactiveReservationWhileAnotherInstanceHoldsTheSkuLockAnswers409() {
		restock(5);
		this.otherInstance.whileHolding("stock:" + this.sku,
				() -> assertThat(reserveReactively(1)).hasStatus(HttpStatus.CONFLICT)
					.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
					.bodyJson()
					.isLenientlyEqualTo(
							"{\"status\": 409, \"lock\": \"stock:%s\", \"waitTime\": \"PT0.2S\"}".formatted(this.sku)));
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("5");
	}

	@Test
	void blockingAndReactiveReservationsOfOneSkuNeverOversell() throws Exception {
		restock(40);
		ExecutorService callers = Executors.newFixedThreadPool(8);
		try {
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < 60; i++) {
				boolean reactive = (i % 2 == 0);
				statuses.add(callers.submit(() -> reserveUntilAnswered(reactive)));
			}
			List<Integer> answers = new ArrayList<>();
			for (Future<Integer> status : statuses) {
				answers.add(status.get(60, TimeUnit.SECONDS));
			}
			assertThat(answers).as("40 reserved, the other 20 refused as out of stock")
				.filteredOn((status) -> status == HttpStatus.CREATED.value())
				.hasSize(40);
			assertThat(answers).filteredOn((status) -> status == HttpStatus.UNPROCESSABLE_CONTENT.value()).hasSize(20);
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(redis.command("GET", StockRepository.KEY_PREFIX + this.sku)).isEqualTo("0");
	}

	// The test's lock wait is short (the 409 tests want it so), and a loaded machine may
	// keep a caller waiting past it: a caller told the lock was busy (409) asks again,
	// as a client would, so that what is asserted is the stock, not the machine's speed.
	private int reserveUntilAnswered(boolean reactive) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
		for (;;) {
			int status = (reactive ? reserveReactively(1) : reserve(1)).getResponse().getStatus();
			if (status != HttpStatus.CONFLICT.value() || System.nanoTime() - deadline > 0) {
				return status;
			}
		}
	}

	private MvcTestResult reserveReactively(int quantity) {
		return post("/stock/{sku}/reactive-reservations", quantity);
	}

	private MvcTestResult restock(int quantity) {
		return post("/stock/{sku}/restock", quantity);
	}

	private MvcTestResult reserve(int quantity) {
		return post("/stock/{sku}/reservations", quantity);
	}

	private MvcTestResult post(String path, int quantity) {
		return this.mvc.post()
			.uri(path, this.sku)
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"quantity\": " + quantity + "}")
			.exchange();
	}

}
