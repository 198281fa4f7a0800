package io.github.redislock.interceptor;

import java.util.List;
import java.util.function.Function;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.IfLeaseLost;
import io.github.redislock.internal.LockRequest;
import io.github.redislock.internal.ReactiveLocks;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs a {@code @DistributedLock} method that returns a {@code Mono} or {@code Flux}:
 * returns at once a publisher that, on each subscription, takes the locks (not waiting on
 * any thread), then invokes the method and subscribes to what it returned, and releases
 * the locks once that terminates or is cancelled. The locks a pipeline holds travel in
 * its Reactor context, so a locked method called within it re-enters. Loaded only for
 * such methods, so that the interceptor does not need Reactor.
 */
final class ReactiveLockInvoker {

	private final ReactiveLocks locks;

	ReactiveLockInvoker(RedisLockClient client) {
		this.locks = new ReactiveLocks(client, Schedulers.parallel());
	}

	/**
	 * @param names the locks, resolved from this call's arguments
	 * @param notAcquired what the call answers when a lock stayed taken: the fallback's
	 * result, the skipped result, or it throws the exception
	 */
	Object invoke(LockOperation operation, List<String> names, MethodInvocation invocation,
			NotAcquiredHandler notAcquired) {
		// a scheduled job's minimum hold is computed here, when the scheduler calls the
		// method, before the grant, and counted from the acquisition (a fixedDelay job's
		// then keeps half the delay, not the run's length plus that; a fixedRate job's
		// half its period, not until the end of its period in Redis' time)
		ReactiveLocks.ReleasePolicy policy = new ReactiveLocks.ReleasePolicy(
				operation.holdAtLeast(System.nanoTime(), () -> MinimumHold.UNKNOWN_GRANT),
				operation.getIfLeaseLost() != IfLeaseLost.LOG, false,
				(operation.getIfLeaseLost() != IfLeaseLost.INTERRUPT) ? null
						: (event) -> LeaseLossWatch.stopped(event, operation.describeMethod(), null));
		Function<LockNotAcquiredException, Publisher<Object>> ifNotAcquired = (exception) -> {
			try {
				Object answer = notAcquired.handle(exception);
				// a fallback of a suspending function answers its value, not a Mono
				return (answer instanceof Publisher<?> || answer == null) ? publisher(answer) : Mono.just(answer);
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
		};
		List<LockRequest> requests = names.stream()
			.map((name) -> operation.spec().request(name, operation.getWaitTime(), operation.getLeaseTime()))
			.toList();
		Flux<Object> locked = this.locks.withLocks(requests, policy, () -> proceed(operation, invocation),
				ifNotAcquired);
		return operation.returnsMono() ? locked.singleOrEmpty() : locked;
	}

	// Each subscription runs the method anew (as a subscription to the method's own
	// result would), on a copy of the invocation: the original can be proceeded once.
	private static Publisher<Object> proceed(LockOperation operation, MethodInvocation invocation) {
		MethodInvocation call = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			return Flux.error(ex);
		}
		if (result == null) {
			return Flux.error(new IllegalStateException(operation.describeMethod() + " returned null instead of a "
					+ (operation.returnsMono() ? "Mono" : "Flux") + "; return Mono.empty() or Flux.empty() instead"));
		}
		return publisher(result);
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> publisher(@Nullable Object result) {
		return (result != null) ? (Publisher<Object>) result : Flux.empty();
	}

	/** What a skipped call of a reactive method answers. */
	static Object skipped(boolean mono, @Nullable Object value) {
		if (!mono) {
			return Flux.empty();
		}
		return (value != null) ? Mono.just(value) : Mono.empty();
	}

	@FunctionalInterface
	interface NotAcquiredHandler {

		@Nullable Object handle(LockNotAcquiredException exception) throws Throwable;

	}

}
