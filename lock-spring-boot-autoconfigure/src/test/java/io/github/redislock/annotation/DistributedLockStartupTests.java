package io.github.redislock.annotation;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.redislock.autoconfigure.RedisLockTestContexts;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mistake in an annotation fails application start-up with a message naming the method
 * and what is wrong; no Redis is needed to find out.
 */
class DistributedLockStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock());

	@Test
	void unparsableKeyExpressionFailsStartup() {
		assertStartupFails(UnparsableKey.class,
				"@DistributedLock on UnparsableKey.ship(String): key expression '#orderId +' cannot be parsed");
	}

	@Test
	void unknownParameterNameFailsStartup() {
		assertStartupFails(MisspelledParameter.class,
				"@DistributedLock on MisspelledParameter.ship(String): key expression '#ordrId' uses #ordrId, "
						+ "which is not a parameter of the method (parameters: orderId)");
	}

	@Test
	void skipOnAPrimitiveReturnTypeFailsStartup() {
		assertStartupFails(SkipReturningInt.class, "@DistributedLock on SkipReturningInt.count(String) uses "
				+ "ifLocked = SKIP but returns int, which cannot be null");
	}

	@Test
	void aFutureThatIsNotACompletionStageFailsStartupInsteadOfReleasingTooEarly() {
		assertStartupFails(FutureShipping.class, "@DistributedLock on FutureShipping.ship(String) returns "
				+ "Future: the lock would be released when the method returns, before the asynchronous work ends. "
				+ "Return a CompletableFuture or CompletionStage");
	}

	@Test
	void aCompletionStageOfItsOwnClassFailsStartup() {
		assertStartupFails(OwnStageShipping.class,
				"@DistributedLock on OwnStageShipping.ship(String) returns " + OwnFuture.class.getName()
						+ ", a CompletionStage the lock cannot hand back once it is released. "
						+ "Declare the method to return CompletableFuture or CompletionStage.");
	}

	@Test
	void completableFutureAndCompletionStageMethodsStart() {
		this.contextRunner.withBean(AsyncShipping.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void unreadableDurationFailsStartup() {
		assertStartupFails(BadDuration.class, "@DistributedLock on BadDuration.ship(String): waitTime 'soon' is "
				+ "not a duration; write it like 500ms, 3s, 1m or PT3S");
	}

	@Test
	void unresolvablePlaceholderFailsStartup() {
		assertStartupFails(MissingPlaceholder.class, "@DistributedLock on MissingPlaceholder.ship(String): "
				+ "leaseTime '${shipping.lease}' has a placeholder that no property resolves");
	}

	@Test
	void unresolvablePlaceholderInTheNameFailsStartupSayingSo() {
		assertStartupFails(PlaceholderName.class, "@DistributedLock on PlaceholderName.ship(String): "
				+ "name '${shipping.lock}' has a placeholder that no property resolves");
	}

	@Test
	void leaseShorterThanAMillisecondFailsStartup() {
		assertStartupFails(SubMillisecondLease.class,
				"@DistributedLock on SubMillisecondLease.ship(String): leaseTime must be at least 1ms, was PT0.0005S");
	}

	@Test
	void missingFallbackBeanFailsStartup() {
		assertStartupFails(MissingFallback.class, "@DistributedLock on MissingFallback.ship(String) names fallback "
				+ "'nowhere', but there is no LockFallback bean of that name");
	}

	@Test
	void skipTogetherWithAFallbackFailsStartup() {
		assertStartupFails(SkipAndFallback.class, "sets both ifLocked = SKIP and fallback = 'busy'; choose one");
	}

	private void assertStartupFails(Class<?> service, String message) {
		this.contextRunner.withBean(service).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(message);
		});
	}

	static class UnparsableKey {

		@DistributedLock(key = "#orderId +")
		public void ship(String orderId) {
		}

	}

	static class MisspelledParameter {

		@DistributedLock(key = "#ordrId")
		public void ship(String orderId) {
		}

	}

	static class SkipReturningInt {

		@DistributedLock(key = "#id", ifLocked = IfLocked.SKIP)
		public int count(String id) {
			return 1;
		}

	}

	static class AsyncShipping {

		@DistributedLock(key = "#id")
		public CompletableFuture<String> ship(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@DistributedLock(key = "#id", ifLocked = IfLocked.SKIP)
		public CompletionStage<Optional<String>> reserve(String id) {
			return CompletableFuture.completedFuture(Optional.of(id));
		}

	}

	static class FutureShipping {

		@DistributedLock(key = "#id")
		public Future<String> ship(String id) {
			return CompletableFuture.completedFuture(id);
		}

	}

	static class OwnFuture<T> extends CompletableFuture<T> {

	}

	static class OwnStageShipping {

		@DistributedLock(key = "#id")
		public OwnFuture<String> ship(String id) {
			return new OwnFuture<>();
		}

	}

	static class BadDuration {

		@DistributedLock(key = "#id", waitTime = "soon")
		public void ship(String id) {
		}

	}

	static class MissingPlaceholder {

		@DistributedLock(key = "#id", leaseTime = "${shipping.lease}")
		public void ship(String id) {
		}

	}

	static class PlaceholderName {

		@DistributedLock(name = "${shipping.lock}", key = "#id")
		public void ship(String id) {
		}

	}

	static class SubMillisecondLease {

		@DistributedLock(key = "#id", leaseTime = "500us")
		public void ship(String id) {
		}

	}

	static class MissingFallback {

		@DistributedLock(key = "#id", fallback = "nowhere")
		public String ship(String id) {
			return id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SkipAndFallback {

		@Bean
		LockFallback busy() {
			return (method, arguments, exception) -> null;
		}

		@DistributedLock(key = "#id", ifLocked = IfLocked.SKIP, fallback = "busy")
		public String ship(String id) {
			return id;
		}

	}

}
