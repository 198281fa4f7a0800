package io.github.redislock.sample.demo;

import java.util.List;

import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.sample.stock.StockRepository;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The oversell demo: with the lock, two instances together sell exactly the stock; both
 * runs account for every attempt, whatever the timing; the endpoint answers a table or
 * JSON; nothing is left in Redis.
 */
@SampleAppTest
class OversellDemoTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
		// the demo's own instance waits as long as the second one does (30 s)
		registry.add("sample.stock.lock-wait", () -> "30s");
	}

	@Autowired
	private OversellDemo demo;

	@Autowired
	private StockRepository stock;

	@Autowired
	private MockMvcTester mvc;

	@Test
	void withTheLockTwoInstancesSellExactlyTheStockAndNeverOversell() {
		DemoRun locked = this.demo.run(20, 200, 16).runs().get(1);
		assertThat(locked.run()).isEqualTo("with lock");
		assertThat(locked.sold()).isEqualTo(20);
		assertThat(locked.oversold()).isZero();
		assertThat(locked.stockLeft()).isZero();
		assertThat(locked.rejected() + locked.failed()).isEqualTo(180);
	}

	@Test
	void aHolderPausedPastItsLeaseLosesAWriteToAPlainStoreAndIsRefusedByAFencedOne() {
		List<FencingRun> fencing = this.demo.run(3, 10, 2).fencing();
		assertThat(fencing).extracting(FencingRun::write).containsExactly("plain", "fenced");
		FencingRun plain = fencing.get(0);
		assertThat(plain.sold()).isEqualTo(2);
		assertThat(plain.oversold()).isOne();
		assertThat(plain.staleWritesRejected()).isZero();
		FencingRun fenced = fencing.get(1);
		assertThat(fenced.sold()).isOne();
		assertThat(fenced.oversold()).isZero();
		assertThat(fenced.staleWritesRejected()).isOne();
		assertThat(fenced.stockLeft()).isEqualTo(9);
		assertThat(fenced.takeOverToken()).isGreaterThan(fenced.pausedToken());
	}

	@Test
	void bothRunsAccountForEveryAttempt() {
		DemoReport report = this.demo.run(20, 200, 16);
		assertThat(report.runs()).extracting(DemoRun::run).containsExactly("without lock", "with lock");
		assertThat(report.runs()).allSatisfy((run) -> {
			assertThat(run.requests()).isEqualTo(200);
			assertThat(run.sold() + run.rejected() + run.failed()).isEqualTo(200);
			assertThat(run.oversold()).isEqualTo(Math.max(0, run.sold() - 20));
			assertThat(run.stockLeft()).isBetween(0, 20);
		});
	}

	@Test
	void endpointAnswersATableByDefaultAndTheNumbersAsJsonOnRequest() {
		assertThat(this.mvc.post().uri("/demo/oversell?stock=5&requests=20&concurrency=4")).hasStatusOk()
			.hasContentTypeCompatibleWith(MediaType.TEXT_PLAIN)
			.bodyText()
			.startsWith("Oversell demo: 5 units in stock, 20 reservations of 1 unit from 2 instances, 4 at a time")
			.contains("without lock")
			.containsPattern("with lock\\s+5\\s+15\\s+0\\s+0\\s+0")
			.containsPattern("fenced\\s+1\\s+1\\s+0\\s+9");
		assertThat(this.mvc.post()
			.uri("/demo/oversell?stock=5&requests=20&concurrency=4")
			.accept(MediaType.APPLICATION_JSON)).hasStatusOk().bodyJson().isLenientlyEqualTo("""
					{"stock": 5, "requests": 20, "concurrency": 4,
					 "runs": [{"run": "without lock", "requests": 20},
					          {"run": "with lock", "requests": 20, "sold": 5, "rejected": 15, "failed": 0,
					           "oversold": 0, "stockLeft": 0}]}""");
	}

	@Test
	void endpointRejectsAnUnreasonableRunWith400() {
		assertThat(this.mvc.post().uri("/demo/oversell?concurrency=1000")).hasStatus4xxClientError()
			.bodyJson()
			.isLenientlyEqualTo("{\"status\": 400, \"detail\": \"concurrency must be 1 to 64, was 1000\"}");
	}

	@Test
	void runsLeaveNoStockBehind() {
		this.demo.run(3, 10, 2);
		assertThat(this.stock.skus()).noneMatch((sku) -> sku.startsWith("demo-"));
	}

}
