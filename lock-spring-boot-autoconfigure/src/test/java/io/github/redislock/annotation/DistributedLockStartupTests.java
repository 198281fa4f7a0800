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
						+ "Declare the method to return CompletableFuture or CompletionStage");
	}

	@Test
	void completableFutureAndCompletionStageMethodsStart() {
		this.contextRunner.withBean(AsyncShipping.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void unreadableDurationFailsStartup() {
		assertStartupFails(BadDuration.class, "@DistributedLock on BadDuration.ship(String): waitTime 'soon' is "
				+ "not a duration. Write it like 500ms, 3s, 1m or PT3S");
	}

	@Test
	void holdAtLeastLongerThanTheLeaseFailsStartup() {
		assertStartupFails(HoldLongerThanLease.class, "@DistributedLock on HoldLongerThanLease.ship(String): "
				+ "holdAtLeast 10s is longer than leaseTime PT5S, so the lock could expire before it");
	}

	@Test
	void aPrivateMethodFailsStartupInsteadOfNeverLocking() {
		assertStartupFails(PrivateShipping.class,
				"@DistributedLock on PrivateShipping.ship(String) can never take " + "its lock: the method is private");
	}

	@Test
	void aFinalMethodFailsStartupInsteadOfRunningWithoutTheLock() {
		assertStartupFails(FinalShipping.class,
				"@DistributedLock on FinalShipping.ship(String) can never take its lock: the method is final");
	}

	@Test
	void aStaticMethodFailsStartup() {
		assertStartupFails(StaticShipping.class,
				"@DistributedLock on StaticShipping.ship(String) can never take its lock: the method is static");
	}

	// the proxy machinery stops at the first locked method it finds and then only looks
	// at methods it can override: a private one beside public ones is found by the check
	@Test
	void aPrivateLockedMethodBesidePublicOnesFailsStartup() {
		assertStartupFails(OneBadAmongMany.class,
				"@DistributedLock on OneBadAmongMany.third(String) can never take its lock: the method is private");
	}

	@Test
	void startupErrorsAreInvalidLockAnnotationExceptions() {
		this.contextRunner.withBean(SkipReturningInt.class)
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidLockAnnotationException.class));
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
		assertStartupFails(SkipAndFallback.class, "sets both ifLocked = SKIP and fallback = 'busy'. Choose one");
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

	static class HoldLongerThanLease {

		@DistributedLock(key = "#id", leaseTime = "5s", holdAtLeast = "10s")
		public void ship(String id) {
		}

	}

	static class PrivateShipping {

		@DistributedLock(key = "#id")
		private void ship(String id) {
		}

		public void call(String id) {
			ship(id);
		}

	}

	static class FinalShipping {

		@DistributedLock(key = "#id")
		public final void ship(String id) {
		}

	}

	static class StaticShipping {

		@DistributedLock(key = "#id")
		public static void ship(String id) {
		}

	}

	static class OneBadAmongMany {

		@DistributedLock(key = "#id")
		public void first(String id) {
		}

		@DistributedLock(key = "#id")
		public void second(String id) {
		}

		@DistributedLock(key = "#id")
		private void third(String id) {
		}

		public void callThird(String id) {
			third(id);
		}

		@DistributedLock(key = "#id")
		public void fourth(String id) {
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
