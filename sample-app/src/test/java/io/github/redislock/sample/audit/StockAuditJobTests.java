package io.github.redislock.sample.audit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.OtherInstance;
import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.sample.stock.StockRepository;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stock audit runs on one caller at a time: of two rounds at the same moment one runs
 * and the other skips without waiting, a round skips while another instance runs the
 * audit, and the counts show at {@code /jobs/stock-audit}. The scheduler stays out of the
 * way here (see {@link StockAuditScheduleTests}).
 */
@SampleAppTest
@Import(StockAuditJobTests.GateConfiguration.class)
class StockAuditJobTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
	}

	@Autowired
	private StockAuditSchedule schedule;

	@Autowired
	private GatedStockAuditor auditor;

	@Autowired
	private StockRepository stock;

	@Autowired
	private RedisLockProperties lockProperties;

	@Autowired
	private MockMvcTester mvc;

	@AfterEach
	void openGate() {
		this.auditor.open();
	}

	@Test
	void ofTwoConcurrentRoundsOneRunsAndTheOtherSkips() throws InterruptedException {
		this.stock.save("audit-sku", 7);
		StockAuditStatistics before = this.schedule.statistics();
		this.auditor.close();
		CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(this.schedule::runRound);
		assertThat(this.auditor.awaitStarted(TIMEOUT)).as("first round is inside the audit").isTrue();
		boolean second = this.schedule.runRound();
		this.auditor.open();
		assertThat(first).succeedsWithin(TIMEOUT).isEqualTo(true);
		assertThat(second).isFalse();
		StockAuditStatistics after = this.schedule.statistics();
		assertThat(after.ran() - before.ran()).isOne();
		assertThat(after.skipped() - before.skipped()).isOne();
		assertThat(after.lastReport().skus()).isOne();
		assertThat(after.lastReport().units()).isEqualTo(7);
		assertThat(this.mvc.get().uri("/jobs/stock-audit")).hasStatusOk()
			.bodyJson()
			.isLenientlyEqualTo("""
					{"ran": %d, "skipped": %d, "lastReport": {"skus": 1, "units": 7}}""".formatted(after.ran(),
					after.skipped()));
	}

	@Test
	void roundSkipsWhileAnotherInstanceRunsTheAuditAndRunsAfterwards() {
		StockAuditStatistics before = this.schedule.statistics();
		try (OtherInstance otherInstance = new OtherInstance(redis, this.lockProperties)) {
			otherInstance.whileHolding("stock-audit", () -> assertThat(this.schedule.runRound()).isFalse());
		}
		assertThat(this.schedule.runRound()).isTrue();
		StockAuditStatistics after = this.schedule.statistics();
		assertThat(after.ran() - before.ran()).isOne();
		assertThat(after.skipped() - before.skipped()).isOne();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class GateConfiguration {

		@Bean
		@Primary
		GatedStockAuditor gatedStockAuditor(StockRepository stockRepository) {
			return new GatedStockAuditor(stockRepository);
		}

	}

}
