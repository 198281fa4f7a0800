package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.IfLeaseLost;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.annotation.InvalidLockAnnotationException;
import io.github.redislock.annotation.LockFallback;
import io.github.redislock.internal.LockSpec;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.jspecify.annotations.Nullable;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@code @DistributedLock} methods under their locks. It only orchestrates: resolve
 * the lock names, acquire them, proceed, release when the method returns (a synchronous
 * method, thread-owned locks) or when its {@code CompletionStage} completes (an
 * asynchronous method, one {@link io.github.redislock.LockHandle} per lock); a method
 * returning a {@code Mono} or {@code Flux} is handed to {@link ReactiveLockInvoker}. The
 * engine and the evaluator do the work.
 *
 * @since 0.1.0
 */
public class LockInterceptor implements MethodInterceptor, BeanFactoryAware, SmartInitializingSingleton {

	private final LockOperationSource operationSource;

	private final Supplier<RedisLockClient> lockClient;

	@Nullable private BeanFactory beanFactory;

	private LockKeyEvaluator evaluator = new LockKeyEvaluator(null);

	private final Map<String, LockFallback> fallbacks = new ConcurrentHashMap<>();

	// made at the first call of a reactive method: the interceptor needs no Reactor
	private final SingletonSupplier<ReactiveLockInvoker> reactiveInvoker;

	/**
	 * Creates an interceptor.
	 * @param operationSource which methods are locked, and how
	 * @param lockClient the client that takes the locks
	 */
	public LockInterceptor(LockOperationSource operationSource, RedisLockClient lockClient) {
		this(operationSource, SingletonSupplier.of(lockClient));
	}

	/**
	 * Creates an interceptor that obtains its client at the first locked call, so that
	 * creating the interceptor (early, with the other infrastructure) does not create the
	 * Redis connection factory.
	 * @param operationSource which methods are locked, and how
	 * @param lockClient supplies the client that takes the locks
	 */
	public LockInterceptor(LockOperationSource operationSource, Supplier<RedisLockClient> lockClient) {
		Assert.notNull(operationSource, "operationSource must not be null");
		Assert.notNull(lockClient, "lockClient must not be null");
		this.operationSource = operationSource;
		this.lockClient = SingletonSupplier.of(lockClient);
		this.reactiveInvoker = SingletonSupplier.of(() -> new ReactiveLockInvoker(this.lockClient.get()));
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.evaluator = new LockKeyEvaluator(beanFactory);
	}

	@Override
	@Nullable public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operationSource.getLockOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		long started = System.nanoTime();
		List<String> names = this.evaluator.lockNames(operation, target, targetClass, invocation.getArguments());
		if (operation.isReactive()) {
			return this.reactiveInvoker.obtain()
				.invoke(operation, names, invocation, (exception) -> notAcquired(operation, invocation, exception));
		}
		return operation.isAsynchronous() ? invokeUntilCompletion(operation, names, invocation, started)
				: invokeUntilReturn(operation, names, invocation, started);
	}

	// holds the locks until the method returns or throws; a name an enclosing
	// asynchronous call of this thread holds is not taken again: that call keeps it
	// for longer than this one runs
	@Nullable private Object invokeUntilReturn(LockOperation operation, List<String> names, MethodInvocation invocation,
			long started) throws Throwable {
		List<String> toTake = names;
		for (String name : names) {
			if (heldUntilCompletion(operation, name)) {
				toTake = new ArrayList<>(names);
				toTake.removeIf((taken) -> heldUntilCompletion(operation, taken));
				break;
			}
		}
		AcquiredLocks locks;
		try {
			locks = AcquiredLocks.forThread(this.lockClient.get(), operation.requests(toTake, started));
		}
		catch (LockNotAcquiredException ex) {
			return whenNotAcquired(operation, invocation, ex);
		}
		Object result;
		LockScope scope = LockScope.enter(operation, scopeNames(operation, toTake));
		LeaseLossWatch watch = (operation.getIfLeaseLost() != IfLeaseLost.INTERRUPT) ? null
				: LeaseLossWatch.interrupting(locks.leaseLosses());
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			LeaseLostEvent stoppedBy = (watch != null) ? watch.endInterrupting() : null;
			locks.release(ex, operation.holdAtLeast(started, locks::fencingToken));
			if (stoppedBy != null) {
				throw LeaseLossWatch.stopped(stoppedBy, operation.describeMethod(), ex);
			}
			throw ex;
		}
		finally {
			scope.exit();
		}
		LeaseLostEvent stoppedBy = (watch != null) ? watch.endInterrupting() : null;
		if (stoppedBy != null) {
			locks.release(null, operation.holdAtLeast(started, locks::fencingToken));
			throw LeaseLossWatch.stopped(stoppedBy, operation.describeMethod(), null);
		}
		locks.releaseAfterReturn(operation.getIfLeaseLost(), operation.holdAtLeast(started, locks::fencingToken));
		return result;
	}

	// holds the locks, one handle each, until the returned stage completes; a name an
	// enclosing asynchronous call of this thread holds is shared with it (it then keeps
	// the lock until this call's stage completed too)
	@Nullable private Object invokeUntilCompletion(LockOperation operation, List<String> names, MethodInvocation invocation,
			long started) throws Throwable {
		List<String> toTake = new ArrayList<>(names.size());
		Set<LockScope> sharing = new LinkedHashSet<>();
		for (String name : names) {
			LockScope owner = LockScope.owning(scopeName(operation, name));
			if (owner == null) {
				if (operation.spec() instanceof LockSpec.ThreadOwned owned
						&& owned.lock(this.lockClient.get(), name).isHeldByCurrentThread()) {
					throw cannotReenter(operation, name, "the calling thread holds it (taken with RedisLock), "
							+ "and only that thread can release it");
				}
				toTake.add(name);
			}
			else if (owner.holdsUntilCompletion()) {
				sharing.add(owner);
			}
			else {
				throw cannotReenter(operation, name,
						owner.operation().describeMethod() + ", which calls it, holds it until it returns");
			}
		}
		AcquiredLocks.OfHandles locks;
		try {
			locks = AcquiredLocks.forHandles(this.lockClient.get(), operation.requests(toTake, started));
		}
		catch (LockNotAcquiredException ex) {
			return whenNotAcquired(operation, invocation, ex);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletionStage<?> stage;
		LockScope scope = LockScope.enter(operation, scopeNames(operation, toTake));
		try {
			stage = (CompletionStage<?>) invocation.proceed();
		}
		catch (Throwable ex) {
			releaseWithoutResult(locks, scope, ex, operation.holdAtLeast(started, locks::fencingToken));
			throw ex;
		}
		finally {
			scope.exit();
		}
		if (stage == null) {
			releaseWithoutResult(locks, scope, null, operation.holdAtLeast(started, locks::fencingToken));
			return null;
		}
		CompletableFuture<Object> result = locks.releaseOnCompletion(stage, scope.joinedCompletion(),
				operation.getIfLeaseLost(), operation.holdAtLeast(started, locks::fencingToken),
				operation.describeMethod());
		for (LockScope owner : sharing) {
			owner.join(result);
		}
		return result;
	}

	// no stage to wait for: release now, as a synchronous method would, unless nested
	// calls sharing these locks still run; they keep them until they completed
	private static void releaseWithoutResult(AcquiredLocks.OfHandles locks, LockScope scope,
			@Nullable Throwable failure, Duration holdAtLeast) {
		if (scope.hasJoined()) {
			locks.releaseOnCompletion(
					(failure != null) ? CompletableFuture.failedFuture(failure)
							: CompletableFuture.completedFuture(null),
					scope.joinedCompletion(), IfLeaseLost.LOG, holdAtLeast, "");
		}
		else {
			locks.release(failure, holdAtLeast);
		}
	}

	private static boolean heldUntilCompletion(LockOperation operation, String name) {
		LockScope owner = LockScope.owning(scopeName(operation, name));
		return owner != null && owner.holdsUntilCompletion();
	}

	// What LockScope knows a lock by: its kind's scope of the name, so that the read,
	// write and fair locks and the permits of a name are other locks than its exclusive
	// one
	private static String scopeName(LockOperation operation, String name) {
		return operation.spec().scope(name);
	}

	private static List<String> scopeNames(LockOperation operation, List<String> names) {
		return names.stream().map((name) -> scopeName(operation, name)).toList();
	}

	private static IllegalStateException cannotReenter(LockOperation operation, String name, String why) {
		String method = operation.describeMethod();
		return new IllegalStateException("@DistributedLock on " + method + " cannot take lock '" + name + "': " + why
				+ ", while " + method + " returns a CompletionStage and would keep the lock until that "
				+ "completes; waiting for it would deadlock. Let the caller return a CompletableFuture too "
				+ "(the two then share the lock), or call " + method + " outside the caller's lock.");
	}

	/**
	 * Checks, once all singletons exist, that every named fallback is a
	 * {@link LockFallback} bean.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory != null && this.operationSource instanceof AnnotationLockOperationSource source) {
			for (LockOperation operation : source.operations()) {
				if (operation.getFallback() != null) {
					fallback(operation);
				}
			}
		}
	}

	// an asynchronous method answers with a failed stage, as it does when its own work
	// fails, rather than throwing at its caller
	@Nullable private Object whenNotAcquired(LockOperation operation, MethodInvocation invocation,
			LockNotAcquiredException exception) throws Throwable {
		if (!operation.isAsynchronous()) {
			return notAcquired(operation, invocation, exception);
		}
		try {
			return notAcquired(operation, invocation, exception);
		}
		catch (Exception ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Nullable private Object notAcquired(LockOperation operation, MethodInvocation invocation, LockNotAcquiredException exception)
			throws Throwable {
		if (operation.getFallback() != null) {
			Method method = invocation.getMethod();
			Object result = fallback(operation).onLocked(method, invocation.getArguments(), exception);
			if (!ClassUtils.isAssignableValue(method.getReturnType(), result) && method.getReturnType() != void.class) {
				throw new IllegalStateException("Fallback '" + operation.getFallback() + "' of @DistributedLock on "
						+ operation.describeMethod() + " returned "
						+ ((result != null) ? result.getClass().getName() : "null")
						+ ", which the method cannot return", exception);
			}
			return result;
		}
		if (operation.getIfLocked() == IfLocked.SKIP) {
			return operation.skippedResult();
		}
		throw exception;
	}

	// looked up once per name: a contended call should not search the bean factory
	private LockFallback fallback(LockOperation operation) {
		return this.fallbacks.computeIfAbsent(operation.getFallback(), (name) -> {
			if (this.beanFactory == null || !this.beanFactory.containsBean(name)
					|| !this.beanFactory.isTypeMatch(name, LockFallback.class)) {
				throw new InvalidLockAnnotationException(
						"@DistributedLock on " + operation.describeMethod() + " names fallback '" + name
								+ "', but there is no LockFallback bean of that name",
						"Declare a LockFallback bean named '" + name + "', or correct the fallback attribute");
			}
			return this.beanFactory.getBean(name, LockFallback.class);
		});
	}

}
