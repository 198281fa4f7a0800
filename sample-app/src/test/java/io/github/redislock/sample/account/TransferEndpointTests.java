package io.github.redislock.sample.account;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.OtherInstance;
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
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Transfers against a real Redis: they move money between two accounts under both
 * accounts' locks, refuse what the rules refuse without moving anything, answer 409 while
 * another instance holds either account, and do not deadlock when they run in opposite
 * directions at the same time.
 */
@SampleAppTest
class TransferEndpointTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
		// long enough for four threads queueing for the same two accounts on a busy
		// machine
		// a wait no contended transfer outlasts on a busy machine: with 1 s, one of the
		// opposing transfers below gave up while the sample, the Boot 3.5 tests and the
		// JVM tests ran at once; 409 is tested with another instance holding the lock
		registry.add("sample.accounts.lock-wait", () -> "5s");
	}

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private AccountService accounts;

	@Autowired
	private RedisLockProperties lockProperties;

	private final String alice = "alice-" + UUID.randomUUID();

	private final String bob = "bob-" + UUID.randomUUID();

	@Test
	void transferMovesMoneyFromOneAccountToTheOther() {
		open(this.alice, 100);
		open(this.bob, 5);
		assertThat(transfer(this.alice, this.bob, 30)).hasStatusOk()
			.bodyJson()
			.isLenientlyEqualTo("""
					{"from": "%s", "to": "%s", "amount": 30, "fromBalance": 70, "toBalance": 35}"""
				.formatted(this.alice, this.bob));
		assertThat(redis.command("GET", AccountRepository.KEY_PREFIX + this.alice)).isEqualTo("70");
		assertThat(redis.command("GET", AccountRepository.KEY_PREFIX + this.bob)).isEqualTo("35");
	}

	@Test
	void transferOfMoreThanTheBalanceIsRefusedWith422AndMovesNothing() {
		open(this.alice, 10);
		open(this.bob, 0);
		assertThat(transfer(this.alice, this.bob, 11)).hasStatus(HttpStatus.UNPROCESSABLE_CONTENT)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(balance(this.alice)).bodyJson().isLenientlyEqualTo("{\"balance\": 10}");
		assertThat(balance(this.bob)).bodyJson().isLenientlyEqualTo("{\"balance\": 0}");
	}

	@Test
	void transferInvolvingAnUnknownAccountAnswers404() {
		open(this.alice, 10);
		assertThat(transfer(this.alice, this.bob, 1)).hasStatus(HttpStatus.NOT_FOUND)
			.bodyJson()
			.isLenientlyEqualTo("{\"detail\": \"No account '%s'\"}".formatted(this.bob));
	}

	@Test
	void transferWhileAnotherInstanceHoldsOneOfTheAccountsAnswers409NamingThatAccountsLock() {
		open(this.alice, 100);
		open(this.bob, 0);
		try (OtherInstance otherInstance = new OtherInstance(redis, this.lockProperties)) {
			otherInstance.whileHolding("account:" + this.bob, () -> assertThat(transfer(this.alice, this.bob, 30))
				.hasStatus(HttpStatus.CONFLICT)
				.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
				.bodyJson()
				.isLenientlyEqualTo(
						"{\"status\": 409, \"lock\": \"account:%s\", \"waitTime\": \"PT5S\"}".formatted(this.bob)));
		}
		assertThat(balance(this.alice)).bodyJson().isLenientlyEqualTo("{\"balance\": 100}");
		assertThat(transfer(this.alice, this.bob, 30)).hasStatusOk();
	}

	@Test
	void opposingTransfersAtTheSameTimeKeepEveryUnitAndDoNotDeadlock() {
		this.accounts.open(this.alice, 1000);
		this.accounts.open(this.bob, 1000);
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<CompletableFuture<Void>> transfers = List.of(transfers(executor, this.alice, this.bob, 3),
					transfers(executor, this.bob, this.alice, 2), transfers(executor, this.alice, this.bob, 3),
					transfers(executor, this.bob, this.alice, 2));
			assertThat(CompletableFuture.allOf(transfers.toArray(CompletableFuture[]::new)))
				.succeedsWithin(Duration.ofSeconds(30));
		}
		finally {
			executor.shutdownNow();
		}
		// 2 x 50 x 3 from alice to bob, 2 x 50 x 2 back: a lost update would break either
		// balance
		assertThat(balance(this.alice)).bodyJson().isLenientlyEqualTo("{\"balance\": 900}");
		assertThat(balance(this.bob)).bodyJson().isLenientlyEqualTo("{\"balance\": 1100}");
	}

	private CompletableFuture<Void> transfers(ExecutorService executor, String from, String to, long amount) {
		return CompletableFuture.runAsync(() -> {
			for (int i = 0; i < 50; i++) {
				this.accounts.transfer(List.of(from, to), amount);
			}
		}, executor);
	}

	private void open(String accountId, long balance) {
		assertThat(this.mvc.put()
			.uri("/accounts/{id}", accountId)
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"balance\": " + balance + "}")).hasStatusOk();
	}

	private MvcTestResult balance(String accountId) {
		return this.mvc.get().uri("/accounts/{id}", accountId).exchange();
	}

	private MvcTestResult transfer(String from, String to, long amount) {
		return this.mvc.post()
			.uri("/accounts/transfer")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"from\": \"%s\", \"to\": \"%s\", \"amount\": %d}".formatted(from, to, amount))
			.exchange();
	}

}
