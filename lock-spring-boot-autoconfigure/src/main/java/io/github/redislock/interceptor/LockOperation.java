package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

import io.github.redislock.annotation.IfLeaseLost;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.annotation.LockMode;
import io.github.redislock.internal.LockRequest;
import io.github.redislock.internal.LockSpec;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;
import org.springframework.expression.Expression;
import org.jspecify.annotations.Nullable;

/**
 * What one {@code @DistributedLock} method asks for, resolved once when its bean is
 * created: the lock name, the parsed key expressions and the effective wait and lease.
 *
 * @since 0.1.0
 */
public final class LockOperation {

	private final Method method;

	private final String name;

	private final List<KeyExpression> keys;

	private final Duration waitTime;

	@Nullable private final Duration leaseTime;

	private final IfLocked ifLocked;

	@Nullable private final String fallback;

	private final IfLeaseLost ifLeaseLost;

	private final Duration holdAtLeast;

	private final MinimumHold minimumHold;

	private final LockMode mode;

	private final int permits;

	// the kind each name is taken as, chosen once from the mode and the permits
	private final LockSpec spec;

	private final String[][] variableNames;

	private final boolean asynchronous;

	private final boolean mono;

	private final boolean flux;

	// whether a skipped call answers Optional.empty() (or a stage or Mono of it) rather
	// than null
	private final boolean skipsWithOptional;

	LockOperation(Method method, String name, List<KeyExpression> keys, Duration waitTime, @Nullable Duration leaseTime,
			IfLocked ifLocked, @Nullable String fallback, IfLeaseLost ifLeaseLost, Duration holdAtLeast,
			MinimumHold minimumHold, LockMode mode, int permits) {
		this.method = method;
		this.mode = mode;
		this.permits = permits;
		this.spec = LockModes.spec(mode, permits);
		this.name = name;
		this.keys = List.copyOf(keys);
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.ifLocked = ifLocked;
		this.fallback = fallback;
		this.ifLeaseLost = ifLeaseLost;
		this.holdAtLeast = holdAtLeast;
		this.minimumHold = minimumHold;
		this.variableNames = variableNames(method);
		this.asynchronous = CompletionStage.class.isAssignableFrom(method.getReturnType());
		// Spring's proxy invokes a suspending function as a Mono, and awaits the Mono
		// the interceptor returns
		this.mono = ReactiveTypes.isMono(method.getReturnType())
				|| (KotlinDetector.isSuspendingFunction(method) && ReactiveTypes.canLockSuspendingFunctions());
		this.flux = ReactiveTypes.isFlux(method.getReturnType());
		this.skipsWithOptional = ((this.asynchronous || this.mono)
				? ResolvableType.forMethodReturnType(method).resolveGeneric(0)
				: method.getReturnType()) == Optional.class;
	}

	/** The annotated method. */
	public Method getMethod() {
		return this.method;
	}

	/** The lock's name before the key parts. */
	public String getName() {
		return this.name;
	}

	/** The key expressions, in the order the annotation gives them. */
	public List<String> getKeyExpressions() {
		return this.keys.stream().map(KeyExpression::source).toList();
	}

	/** How long a call waits for the lock. */
	public Duration getWaitTime() {
		return this.waitTime;
	}

	/**
	 * How long a call that starts at {@code nowNanos} ({@link System#nanoTime()}) waits
	 * for its locks: the wait time, or longer for a scheduled job whose previous run's
	 * hold is due to end about now.
	 */
	Duration waitTime(long nowNanos) {
		Duration atLeast = this.minimumHold.waitAtLeast(nowNanos);
		return (atLeast.compareTo(this.waitTime) > 0) ? atLeast : this.waitTime;
	}

	/** The lease, or {@code null} for a lease renewed by the watchdog. */
	@Nullable public Duration getLeaseTime() {
		return this.leaseTime;
	}

	/** What a call does when the lock is not acquired, unless a fallback is named. */
	public IfLocked getIfLocked() {
		return this.ifLocked;
	}

	/** The name of the {@code LockFallback} bean, or {@code null}. */
	@Nullable public String getFallback() {
		return this.fallback;
	}

	/** What a call does when its lease turns out lost on release. */
	public IfLeaseLost getIfLeaseLost() {
		return this.ifLeaseLost;
	}

	/**
	 * How long the lock stays taken at least, from its acquisition, as the annotation's
	 * {@code holdAtLeast} gives it; zero for none (a {@code @Scheduled} method without it
	 * computes its own at each run).
	 * @since 0.1.0
	 */
	public Duration getHoldAtLeast() {
		return this.holdAtLeast;
	}

	/**
	 * The minimum hold of a call that started at {@code startedNanos}
	 * ({@link System#nanoTime()}), asked when it ends.
	 * @param fencingToken gives the token of the call's first lock, or
	 * {@link MinimumHold#UNKNOWN_GRANT}
	 */
	Duration holdAtLeast(long startedNanos, LongSupplier fencingToken) {
		return this.minimumHold.holdAtLeast(startedNanos, fencingToken);
	}

	/**
	 * Which lock of each name the method takes.
	 * @since 0.1.0
	 */
	public LockMode getMode() {
		return this.mode;
	}

	/**
	 * How many calls may hold each name at once: 1 for a lock of the {@link #getMode()
	 * mode}, more for a permit of the name's semaphore.
	 */
	public int getPermits() {
		return this.permits;
	}

	/** The kind each name is taken as, with the limit of its holders. */
	LockSpec spec() {
		return this.spec;
	}

	/**
	 * What a call that started at {@code startedNanos} ({@link System#nanoTime()}) asks
	 * for each of its names, in their order: one request each, the kind chosen once.
	 */
	List<LockRequest> requests(List<String> names, long startedNanos) {
		Duration waitTime = waitTime(startedNanos);
		return names.stream().map((name) -> this.spec.request(name, waitTime, this.leaseTime)).toList();
	}

	/**
	 * Whether the method returns a {@link CompletionStage}, so that its locks are held
	 * until that stage completes rather than until the method returns.
	 */
	public boolean isAsynchronous() {
		return this.asynchronous;
	}

	/**
	 * Whether the method returns a Reactor {@code Mono} or {@code Flux}, so that its
	 * locks are taken when the result is subscribed and held until it terminates.
	 * @since 0.1.0
	 */
	public boolean isReactive() {
		return this.mono || this.flux;
	}

	/** Whether the method returns a Reactor {@code Mono}. */
	boolean returnsMono() {
		return this.mono;
	}

	/**
	 * The names under which each argument is a SpEL variable: its parameter name (when
	 * compiled with {@code -parameters}), {@code p<i>} and {@code a<i>}.
	 */
	String[][] variableNames() {
		return this.variableNames;
	}

	private static String[][] variableNames(Method method) {
		@Nullable String[] parameterNames = KeyExpressionParser.parameterNamesOf(method);
		String[][] names = new String[method.getParameterCount()][];
		for (int i = 0; i < names.length; i++) {
			// a Kotlin suspending function's names leave out its last parameter, the
			// Continuation the compiler added
			String name = (parameterNames != null && i < parameterNames.length) ? parameterNames[i] : null;
			names[i] = (name != null) ? new String[] { name, "p" + i, "a" + i } : new String[] { "p" + i, "a" + i };
		}
		return names;
	}

	List<KeyExpression> keys() {
		return this.keys;
	}

	/**
	 * What a call skipped with {@code IfLocked.SKIP} returns: {@code null} or an empty
	 * {@code Optional}; for an asynchronous method, a stage completed with one of them;
	 * for a reactive one, an empty {@code Mono} or {@code Flux}, or a {@code Mono} of an
	 * empty {@code Optional}.
	 */
	@Nullable Object skippedResult() {
		Object value = this.skipsWithOptional ? Optional.empty() : null;
		if (isReactive()) {
			return ReactiveLockInvoker.skipped(this.mono, value);
		}
		// a new stage each time: a caller may complete or cancel what it was given
		return this.asynchronous ? CompletableFuture.completedFuture(value) : value;
	}

	/** The method as messages name it: {@code OrderService.ship(long)}. */
	String describeMethod() {
		return describe(this.method);
	}

	static String describe(Method method) {
		StringBuilder description = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] parameterTypes = method.getParameterTypes();
		for (int i = 0; i < parameterTypes.length; i++) {
			description.append((i > 0) ? ", " : "").append(parameterTypes[i].getSimpleName());
		}
		return description.append(')').toString();
	}

	@Override
	public String toString() {
		return "LockOperation[" + describeMethod() + " -> " + this.name + " " + getKeyExpressions() + ", wait "
				+ this.waitTime + ", lease " + ((this.leaseTime != null) ? this.leaseTime : "watchdog") + "]";
	}

	/** One parsed key expression and its source text, for messages. */
	record KeyExpression(String source, Expression expression) {
	}

}
