package io.github.redislock.annotation;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockNotAcquiredException;

/**
 * Answers a {@link DistributedLock} method call whose lock was not acquired; named by
 * {@link DistributedLock#fallback()}.
 *
 * <pre class="code">
 * &#64;Bean
 * LockFallback stockBusy() {
 *     return (method, arguments, exception) -&gt; ReservationResult.busy((String) arguments[0]);
 * }
 * </pre>
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockFallback {

	/**
	 * Returns what the call returns instead of running the method, or throws what the
	 * call throws.
	 * @param method the annotated method
	 * @param arguments the call's arguments
	 * @param exception why the method did not run, naming the lock and the wait
	 * @return a value assignable to the method's return type ({@code null} for a
	 * {@code void} method)
	 * @throws Throwable anything, passed to the caller as is
	 */
	@Nullable Object onLocked(Method method, @Nullable Object[] arguments, LockNotAcquiredException exception) throws Throwable;

}
