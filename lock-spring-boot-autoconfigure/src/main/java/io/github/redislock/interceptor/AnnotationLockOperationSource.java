package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.annotation.InvalidLockAnnotationException;
import io.github.redislock.annotation.LockMode;

import io.github.redislock.internal.LockNames;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.jspecify.annotations.Nullable;
import org.springframework.lang.Contract;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Reads {@link DistributedLock} from methods, their interfaces and superclasses (also as
 * a meta-annotation), resolves placeholders and durations, parses and checks the key
 * expressions, and caches the result per method and target class; after the first call a
 * lookup is one map hit.
 *
 * @since 0.1.0
 */
public class AnnotationLockOperationSource implements LockOperationSource, EmbeddedValueResolverAware {

	// Spring's reactive adapters know Reactor and the others only when they are present;
	// a plain Reactive Streams Publisher is caught by name
	@Nullable private static final Class<?> reactiveStreamsPublisher = ClassUtils.isPresent("org.reactivestreams.Publisher",
			AnnotationLockOperationSource.class.getClassLoader())
					? ClassUtils.resolveClassName("org.reactivestreams.Publisher",
							AnnotationLockOperationSource.class.getClassLoader())
					: null;

	private static final Object NOT_LOCKED = new Object();

	private final Duration defaultWaitTime;

	@Nullable private final Duration defaultLeaseTime;

	private final KeyExpressionParser keyParser = new KeyExpressionParser();

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(256);

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet();

	@Nullable private StringValueResolver valueResolver;

	/**
	 * Creates a source whose annotations fall back to the given defaults.
	 * @param defaultWaitTime the wait of annotations that give none
	 * @param defaultLeaseTime the lease of annotations that give none, or {@code null}
	 * for the watchdog
	 */
	public AnnotationLockOperationSource(Duration defaultWaitTime, @Nullable Duration defaultLeaseTime) {
		Assert.notNull(defaultWaitTime, "defaultWaitTime must not be null");
		this.defaultWaitTime = defaultWaitTime;
		this.defaultLeaseTime = defaultLeaseTime;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	/**
	 * Whether the class may have locked methods; when it may, checks every one of them
	 * now, while its bean is created, so that a mistake on any of them fails start-up
	 * rather than its first call, or leaves a method that is never proxied running
	 * without its lock.
	 * @throws InvalidLockAnnotationException for the first annotation found wrong
	 */
	@Override
	public boolean isCandidateClass(Class<?> targetClass) {
		if (!AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
			return false;
		}
		if (!this.checkedClasses.contains(targetClass)) {
			ReflectionUtils.doWithMethods(targetClass, (method) -> getLockOperation(method, targetClass),
					(method) -> !method.isSynthetic() && method.getDeclaringClass() != Object.class);
			this.checkedClasses.add(targetClass);
		}
		return true;
	}

	@Override
	@Nullable public LockOperation getLockOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(cacheKey);
		if (cached == null) {
			LockOperation operation = computeOperation(method, targetClass);
			cached = (operation != null) ? operation : NOT_LOCKED;
			this.cache.put(cacheKey, cached);
		}
		return (cached != NOT_LOCKED) ? (LockOperation) cached : null;
	}

	/** The operations found so far. */
	List<LockOperation> operations() {
		List<LockOperation> operations = new ArrayList<>();
		for (Object cached : this.cache.values()) {
			if (cached instanceof LockOperation operation) {
				operations.add(operation);
			}
		}
		return operations;
	}

	@Nullable private LockOperation computeOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.isSynthetic() && !method.isBridge()) {
			// written by a compiler, not by the user, though it may carry the user's
			// annotations: Kotlin's static <name>$suspendImpl behind an open suspend fun
			return null;
		}
		Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, DistributedLock.class);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		return (annotation != null) ? parse(specificMethod, annotation) : null;
	}

	private LockOperation parse(Method method, DistributedLock annotation) {
		String where = "@DistributedLock on " + LockOperation.describe(method);
		checkInterceptable(method, where);
		String name = StringUtils.hasText(annotation.name()) ? resolve(annotation.name(), "name", where)
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		String problem = LockNames.problem(name);
		if (problem != null) {
			throw new InvalidLockAnnotationException(where + ": name " + LockNames.quote(name) + " " + problem,
					"Change the name attribute, or leave it out for <Class>.<method>");
		}
		List<LockOperation.KeyExpression> keys = new ArrayList<>();
		for (String key : annotation.key()) {
			keys.add(this.keyParser.parse(key, method, where));
		}
		String fallback = StringUtils.hasText(annotation.fallback()) ? annotation.fallback() : null;
		ScheduledJob scheduledJob = ScheduledJob.of(method, (value) -> resolve(value, "@Scheduled", where), where);
		Duration waitTime = duration(annotation.waitTime(), "waitTime", where,
				(scheduledJob != null) ? Duration.ZERO : this.defaultWaitTime);
		if (scheduledJob != null && !waitTime.isZero()) {
			throw new InvalidLockAnnotationException(where + ": waitTime " + annotation.waitTime()
					+ " on a @Scheduled method: every instance fires the job, and each would wait for the run of "
					+ "another instance and then run the same tick again",
					"Remove waitTime: a @Scheduled method's lock does not wait, and an instance that finds it taken "
							+ "leaves the tick to the instance that runs it");
		}
		Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", where, this.defaultLeaseTime);
		if (leaseTime != null && leaseTime.toMillis() < 1) {
			throw new InvalidLockAnnotationException(where + ": leaseTime must be at least 1ms, was " + leaseTime,
					"Give a longer lease, or none to have the watchdog renew it");
		}
		Duration holdAtLeast = duration(annotation.holdAtLeast(), "holdAtLeast", where, Duration.ZERO);
		// an explicit minimum hold replaces the one a scheduled job computes for itself
		MinimumHold minimumHold = (scheduledJob != null && !StringUtils.hasText(annotation.holdAtLeast()))
				? scheduledJob : MinimumHold.fixed(holdAtLeast);
		// a tick another instance runs is not a failure of this one: the scheduler
		// would only log it, on every instance but one, at every tick
		IfLocked ifLocked = (scheduledJob != null && fallback == null) ? IfLocked.SKIP : annotation.ifLocked();
		if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
			throw new InvalidLockAnnotationException(
					where + ": holdAtLeast " + annotation.holdAtLeast() + " is longer than leaseTime " + leaseTime
							+ ", so the lock could expire before it",
					"Give a leaseTime at least as long as holdAtLeast, or none to have the watchdog renew it");
		}
		checkReturnType(method, ifLocked, fallback, where);
		checkPermits(annotation.permits(), annotation.mode(), where);
		checkScheduledMode(annotation.mode(), scheduledJob != null, where);
		return new LockOperation(method, name, keys, waitTime, leaseTime, ifLocked, fallback, annotation.ifLeaseLost(),
				holdAtLeast, minimumHold, annotation.mode(), annotation.permits());
	}

	// which modes count holders is the registry's to say, in the words of its kinds
	private static void checkPermits(int permits, LockMode mode, String where) {
		if (permits < 1) {
			throw new InvalidLockAnnotationException(where + ": permits must be at least 1, was " + permits,
					"Leave permits out (1, an exclusive lock), or give how many calls may run at once");
		}
		try {
			LockModes.spec(mode, permits);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockAnnotationException(where + ": permits = " + permits + ", but " + ex.getMessage(),
					"Remove mode to let " + permits + " calls run at once, or remove permits for the " + mode
							+ " lock");
		}
	}

	// a lock any number of callers share cannot make a job run once per tick
	private static void checkScheduledMode(LockMode mode, boolean scheduled, String where) {
		if (scheduled && mode == LockMode.READ) {
			throw new InvalidLockAnnotationException(
					where + ": mode = READ on a @Scheduled method: a read lock is "
							+ "shared, so every instance would run each tick, and the read kept after each run (see "
							+ "@DistributedLock) would keep writers out most of the time",
					"Use mode = WRITE (or EXCLUSIVE) for a scheduled job, or permits = N to let at most N instances "
							+ "run each tick");
		}
	}

	// a proxy only sees calls it can override: on any other method the annotation would
	// be read but the lock never taken
	private static void checkInterceptable(Method method, String where) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers)) {
			throw new InvalidLockAnnotationException(
					where + " can never take its lock: the method is private, "
							+ "and the Spring proxy that takes the lock only sees calls it can override",
					"Make the method public (or protected or package-private) and call it on the bean "
							+ "from another bean, not as this." + method.getName() + "(...)");
		}
		if (Modifier.isStatic(modifiers)) {
			throw new InvalidLockAnnotationException(
					where + " can never take its lock: the method is static, "
							+ "and the Spring proxy that takes the lock only sees calls on the bean instance",
					"Make it an instance method of the bean");
		}
		if (Modifier.isFinal(modifiers)) {
			throw new InvalidLockAnnotationException(
					where + " can never take its lock: the method is final, "
							+ "so the Spring proxy that takes the lock cannot override it, and calls would run without "
							+ "the lock on a proxy instance whose fields are not set",
					"Remove 'final' from the method");
		}
	}

	private static void checkReturnType(Method method, IfLocked ifLocked, @Nullable String fallback, String where) {
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)
				&& !returnType.isAssignableFrom(CompletableFuture.class)) {
			throw new InvalidLockAnnotationException(
					where + " returns " + returnType.getName()
							+ ", a CompletionStage the lock cannot hand back once it is released",
					"Declare the method to return CompletableFuture or CompletionStage");
		}
		if (KotlinDetector.isSuspendingFunction(method) && !ReactiveTypes.canLockSuspendingFunctions()) {
			throw new InvalidLockAnnotationException(where + " is a Kotlin suspending function, which Spring hands to "
					+ "@DistributedLock as a Mono only with Reactor and kotlinx-coroutines-reactor on the class path: "
					+ "without them the lock would be released before the coroutine ends",
					"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the application's dependencies");
		}
		if (ReactiveTypes.isReactorType(returnType) && !ReactiveTypes.isMono(returnType)
				&& !ReactiveTypes.isFlux(returnType)) {
			throw new InvalidLockAnnotationException(
					where + " returns " + returnType.getName()
							+ ", which the lock cannot hand back once it is released",
					"Declare the method to return Mono or Flux");
		}
		if (!CompletionStage.class.isAssignableFrom(returnType) && !ReactiveTypes.isReactorType(returnType)
				&& !KotlinDetector.isSuspendingFunction(method) && isAsynchronous(method)) {
			throw new InvalidLockAnnotationException(
					where + " returns " + returnType.getSimpleName()
							+ ": the lock would be released when the method returns, before the asynchronous work ends",
					"Return a CompletableFuture or CompletionStage, or a Mono or Flux (the lock is then held until "
							+ "it completes), or lock inside the asynchronous task, e.g. with RedisLockClient.withLock(...)");
		}
		if (fallback != null && ifLocked == IfLocked.SKIP) {
			throw new InvalidLockAnnotationException(
					where + " sets both ifLocked = SKIP and fallback = '" + fallback + "'",
					"Choose one: remove ifLocked = SKIP, or the fallback");
		}
		if (ifLocked == IfLocked.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw new InvalidLockAnnotationException(
					where + " uses ifLocked = SKIP but returns " + returnType.getName() + ", which cannot be null",
					"Return a wrapper type or Optional, or name a fallback");
		}
	}

	// Futures, and whatever Spring knows to adapt as reactive (Reactor, RxJava, Mutiny,
	// Kotlin Flow, Flow.Publisher), and Kotlin suspending functions.
	private static boolean isAsynchronous(Method method) {
		Class<?> returnType = method.getReturnType();
		return Future.class.isAssignableFrom(returnType) || Flow.Publisher.class.isAssignableFrom(returnType)
				|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType) != null
				|| KotlinDetector.isSuspendingFunction(method)
				|| (reactiveStreamsPublisher != null && reactiveStreamsPublisher.isAssignableFrom(returnType));
	}

	@Contract("_, _, _, !null -> !null")
	@Nullable private Duration duration(String value, String attribute, String where, @Nullable Duration fallback) {
		if (!StringUtils.hasText(value)) {
			return fallback;
		}
		String resolved = resolve(value, attribute, where).trim();
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(resolved);
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			throw new InvalidLockAnnotationException(where + ": " + attribute + " '" + value + "'"
					+ (resolved.equals(value) ? "" : " (resolved to '" + resolved + "')") + " is not a duration",
					"Write it like 500ms, 3s, 1m or PT3S", ex);
		}
		if (duration.isNegative()) {
			throw new InvalidLockAnnotationException(where + ": " + attribute + " must not be negative, was " + value,
					"Give 0 (do not wait) or more");
		}
		return duration;
	}

	private String resolve(String value, String attribute, String where) {
		if (this.valueResolver == null) {
			return value;
		}
		String resolved;
		try {
			resolved = this.valueResolver.resolveStringValue(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockAnnotationException(where + ": " + attribute + " '" + value + "': " + ex.getMessage(),
					"Define the property, or give a default: ${name:default}", ex);
		}
		if (resolved != null && resolved.contains("${")) {
			throw new InvalidLockAnnotationException(
					where + ": " + attribute + " '" + value + "' has a placeholder that no property resolves",
					"Define the property, or give a default: ${name:default}");
		}
		return (resolved != null) ? resolved : value;
	}

}
