package io.github.redislock.autoconfigure.metrics;

import java.util.function.DoubleSupplier;

import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured client reports to the application's Micrometer registries when
 * there are any, and works the same without Micrometer on the class path.
 */
class RedisLockMetricsAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisLockAndObservability())
		.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
		.withBean(Stock.class);

	@Test
	void anAnnotatedCallIsMeteredByTheAnnotationsNameAsActuatorWiresMicrometer() {
		this.runner.withUserConfiguration(MicrometerAsActuatorWiresIt.class).run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			Stock stock = context.getBean(Stock.class);
			double heldInside = stock.reserve("sku-1", () -> meters.get("redis.lock.held").gauge().value());
			stock.reserve("sku-2", () -> 0.0);
			assertThat(heldInside).isOne();
			assertThat(meters.get("redis.lock.acquire").tags("name", "stock", "outcome", "acquired").timer().count())
				.isEqualTo(2);
			assertThat(meters.get("redis.lock.hold").tags("name", "stock").timer().count()).isEqualTo(2);
			assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
			assertThat(meters.find("redis.lock.acquire").tag("name", "stock:sku-1").timer()).isNull();
			assertThat(client.getLock("stock:sku-1").isLocked()).isFalse();
		});
	}

	@Test
	void anObservationRegistryAloneSeesAcquireAndHold() {
		this.runner.withBean(ObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			context.getBean(Stock.class).reserve("sku-1", () -> 0.0);
			TestObservationRegistry observations = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
			assertThat(observations).hasObservationWithNameEqualTo("redis.lock.acquire")
				.that()
				.hasLowCardinalityKeyValue("name", "stock")
				.hasHighCardinalityKeyValue("key", "lock:{stock:sku-1}");
			assertThat(observations).hasObservationWithNameEqualTo("redis.lock.hold").that().hasBeenStopped();
		});
	}

	@Test
	void withoutMicrometerCoreTheClientAndTheAnnotationStillWork() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("redisLockMetricsCustomizer");
				assertThat(context.getBean(Stock.class).reserve("sku-1", () -> 1.0)).isOne();
			});
	}

	@Test
	void disablingTheLibraryDisablesItsMetrics() {
		this.runner.withPropertyValues("redis-lock.enabled=false")
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).doesNotHaveBean("redisLockMetricsCustomizer")
				.doesNotHaveBean(RedisLockClient.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class MicrometerAsActuatorWiresIt {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ObservationRegistry observationRegistry(MeterRegistry meterRegistry) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
			return registry;
		}

	}

	public static class Stock {

		@DistributedLock(name = "stock", key = "#sku")
		public double reserve(String sku, DoubleSupplier inside) {
			return inside.getAsDouble();
		}

	}

}
