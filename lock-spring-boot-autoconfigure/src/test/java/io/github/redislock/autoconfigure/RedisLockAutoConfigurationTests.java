package io.github.redislock.autoconfigure;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import java.time.Duration;

import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisFairLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.autoconfigure.fencing.JdbcFencingGuardAutoConfiguration;
import io.github.redislock.fencing.FencingGuard;
import io.github.redislock.interceptor.LockInterceptor;
import io.github.redislock.interceptor.LockOperationSource;
import io.github.redislock.interceptor.LockOperationSourceAdvisor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which beans the auto-configuration creates and how properties bind; no Redis is
 * contacted (the connection factory connects lazily).
 */
class RedisLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(BootClasses.redisAndLock());

	@Test
	void defaultsCreateTheClientAndTheAnnotationSupport() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockClient.class)
				.hasSingleBean(LockOperationSource.class)
				.hasSingleBean(LockInterceptor.class)
				.hasSingleBean(LockOperationSourceAdvisor.class)
				.hasSingleBean(RedisLockProperties.class);
			RedisLockProperties properties = context.getBean(RedisLockProperties.class);
			assertThat(properties.getKeyPrefix()).isEqualTo("lock:");
			assertThat(properties.getWaitTime()).isEqualTo(Duration.ofSeconds(5));
			assertThat(properties.getLeaseTime()).isNull();
			assertThat(properties.getWatchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(context.getBean(LockOperationSourceAdvisor.class).getOrder())
				.isEqualTo(RedisLockProperties.DEFAULT_ASPECT_ORDER);
		});
	}

	@Test
	void aReactiveClientSharesTheClientWhenReactorIsPresent() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ReactiveRedisLockClient.class);
			assertThat(context.getBean(ReactiveRedisLockClient.class).toString())
				.contains(context.getBean(RedisLockClient.class).toString());
		});
	}

	@Test
	void withoutReactorThereIsNoReactiveClientAndNothingElseChanges() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("reactor.core"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.hasSingleBean(LockOperationSourceAdvisor.class)
				.doesNotHaveBean(ReactiveRedisLockClient.class));
	}

	@Test
	void aReactiveClientOfTheApplicationWins() {
		ReactiveRedisLockClient own = ReactiveRedisLockClient.create(UserBeans.CLIENT);
		this.contextRunner.withBean("ownReactiveClient", ReactiveRedisLockClient.class, () -> own)
			.run((context) -> assertThat(context).getBean(ReactiveRedisLockClient.class).isSameAs(own));
	}

	@Test
	void propertiesBindAndReachTheBeans() {
		this.contextRunner
			.withPropertyValues("redis-lock.key-prefix=app:locks:", "redis-lock.wait-time=250ms",
					"redis-lock.lease-time=PT10S", "redis-lock.watchdog-timeout=1m", "redis-lock.aspect-order=42",
					"redis-lock.max-local-passes=3", "redis-lock.sharded-pub-sub=never")
			.run((context) -> {
				RedisLockProperties properties = context.getBean(RedisLockProperties.class);
				assertThat(properties.getWaitTime()).isEqualTo(Duration.ofMillis(250));
				assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofSeconds(10));
				assertThat(properties.getWatchdogTimeout()).isEqualTo(Duration.ofMinutes(1));
				assertThat(context.getBean(RedisLockClient.class).toString()).contains("keyPrefix=app:locks:")
					.contains("maxLocalPasses=3")
					.contains("shardedPubSub=NEVER");
				assertThat(context.getBean(LockOperationSourceAdvisor.class).getOrder()).isEqualTo(42);
			});
	}

	@Test
	void userBeansWin() {
		this.contextRunner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisLockClient.class).hasSingleBean(LockInterceptor.class);
			assertThat(context.getBean(RedisLockClient.class)).isSameAs(UserBeans.CLIENT);
			assertThat(context).getBean("userLockInterceptor").isSameAs(context.getBean(LockInterceptor.class));
		});
	}

	@Test
	void builderCustomizersAdjustTheClientInOrderAfterTheProperties() {
		this.contextRunner.withPropertyValues("redis-lock.key-prefix=from-properties:")
			.withBean("late", RedisLockClientBuilderCustomizer.class,
					() -> new OrderedCustomizer(2, (builder) -> builder.keyPrefix("late:")))
			.withBean("early", RedisLockClientBuilderCustomizer.class,
					() -> new OrderedCustomizer(1, (builder) -> builder.keyPrefix("early:")))
			.run((context) -> assertThat(context.getBean(RedisLockClient.class).toString())
				.contains("keyPrefix=late:"));
	}

	@Test
	void disabledFlagTurnsEverythingOff() {
		this.contextRunner.withPropertyValues("redis-lock.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockClient.class)
				.doesNotHaveBean(LockOperationSourceAdvisor.class)
				.doesNotHaveBean(RedisLockProperties.class);
		});
	}

	@Test
	void withoutSpringDataRedisNothingIsRegisteredAndNothingFails() {
		new ApplicationContextRunner().withConfiguration(BootClasses.redisAndLock())
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockClient.class));
	}

	@Test
	void withoutSpringJdbcTheClientAndTheAnnotationSupportAreThereAndNoGuard() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootClasses.redisAutoConfiguration(),
					RedisLockAutoConfiguration.class, JdbcFencingGuardAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.jdbc"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.hasSingleBean(LockOperationSourceAdvisor.class)
				.doesNotHaveBean(FencingGuard.class));
	}

	@Test
	void withoutAConnectionFactoryNothingIsRegistered() {
		new ApplicationContextRunner()
			.withConfiguration(
					org.springframework.boot.autoconfigure.AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisLockClient.class)
				.doesNotHaveBean(RedisConnectionFactory.class));
	}

	@Test
	void withoutSpringAopTheClientIsStillAvailable() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.aop.support"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisLockClient.class)
				.doesNotHaveBean(LockOperationSourceAdvisor.class));
	}

	@Test
	void negativeWaitTimeFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("redis-lock.wait-time=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.wait-time must not be negative"));
	}

	@Test
	void blankKeyPrefixFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("redis-lock.key-prefix= ")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.key-prefix must not be blank"));
	}

	@Test
	void tooSmallWatchdogTimeoutFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("redis-lock.watchdog-timeout=100ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.watchdog-timeout must be at least 300ms"));
	}

	@Test
	void negativeMaxLocalPassesFailStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("redis-lock.max-local-passes=-1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.max-local-passes must not be negative, was -1"));
	}

	@Test
	void maxLocalPassesAboveTheLimitFailStartupNamingThePropertyAndValue() {
		this.contextRunner.withPropertyValues("redis-lock.max-local-passes=65")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.max-local-passes must be at most 64")
				.hasMessageContaining("was 65"));
	}

	@Test
	void maxLocalPassesAtTheLimitIsAccepted() {
		this.contextRunner.withPropertyValues("redis-lock.max-local-passes=64")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void replicaAcknowledgementIsOffUnlessReplicasAreNamedAndBadValuesFailStartup() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(RedisLockProperties.class).getReplicaAcknowledgement().getReplicas())
			.isZero());
		this.contextRunner
			.withPropertyValues("redis-lock.replica-acknowledgement.replicas=2",
					"redis-lock.replica-acknowledgement.timeout=50ms")
			.run((context) -> {
				RedisLockProperties.ReplicaAcknowledgement acknowledgement = context.getBean(RedisLockProperties.class)
					.getReplicaAcknowledgement();
				assertThat(acknowledgement.getReplicas()).isEqualTo(2);
				assertThat(acknowledgement.getTimeout()).isEqualTo(Duration.ofMillis(50));
				assertThat(context).hasSingleBean(RedisLockClient.class);
			});
		this.contextRunner.withPropertyValues("redis-lock.replica-acknowledgement.replicas=-1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.replica-acknowledgement.replicas must not be negative"));
		this.contextRunner.withPropertyValues("redis-lock.replica-acknowledgement.timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.replica-acknowledgement.timeout must be at least 1ms"));
	}

	@Test
	void zeroLeaseTimeFailsStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("redis-lock.lease-time=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.lease-time must be at least 1ms"));
	}

	record OrderedCustomizer(int order,
			RedisLockClientBuilderCustomizer delegate) implements RedisLockClientBuilderCustomizer, Ordered {

		@Override
		public void customize(RedisLockClient.Builder builder) {
			this.delegate.customize(builder);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		static final RedisLockClient CLIENT = new RedisLockClient() {

			@Override
			public RedisLock getLock(String name) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Optional<LockHandle> tryAcquire(String name, Duration waitTime, Duration leaseTime) {
				throw new UnsupportedOperationException();
			}

			@Override
			public CompletableFuture<LockHandle> acquireAsync(String name, Duration waitTime, Duration leaseTime) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RedisReadWriteLock getReadWriteLock(String name) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RedisSemaphore getSemaphore(String name, int permits) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RedisFairLock getFairLock(String name) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void close() {
			}

		};

		@Bean
		RedisLockClient userLockClient() {
			return CLIENT;
		}

		@Bean
		LockInterceptor userLockInterceptor(LockOperationSource source) {
			return new LockInterceptor(source, CLIENT);
		}

	}

}
