package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.annotation.LockFallback;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.lang.Nullable;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@code @DistributedLock} methods under their locks. It only orchestrates: resolve
 * the lock names, acquire them, proceed, release in {@code finally}; the engine and the
 * evaluator do the work.
 *
 * @since 0.1.0
 */
public class LockInterceptor implements MethodInterceptor, BeanFactoryAware, SmartInitializingSingleton {

	private final LockOperationSource operationSource;

	private final Supplier<RedisLockClient> lockClient;

	@Nullable
	private BeanFactory beanFactory;

	private LockKeyEvaluator evaluator = new LockKeyEvaluator(null);

	private final Map<String, LockFallback> fallbacks = new ConcurrentHashMap<>();

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
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.evaluator = new LockKeyEvaluator(beanFactory);
	}

	@Override
	@Nullable
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockOperation operation = this.operationSource.getLockOperation(invocation.getMethod(), targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		List<String> names = this.evaluator.lockNames(operation, target, targetClass, invocation.getArguments());
		AcquiredLocks locks;
		try {
			locks = AcquiredLocks.acquire(this.lockClient.get(), names, operation.getWaitTime(),
					operation.getLeaseTime());
		}
		catch (LockNotAcquiredException ex) {
			return whenNotAcquired(operation, invocation, ex);
		}
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			locks.release(ex);
			throw ex;
		}
		locks.releaseAfterReturn(operation.getIfLeaseLost());
		return result;
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

	@Nullable
	private Object whenNotAcquired(LockOperation operation, MethodInvocation invocation,
			LockNotAcquiredException exception) throws Throwable {
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
				throw new IllegalStateException("@DistributedLock on " + operation.describeMethod()
						+ " names fallback '" + name + "', but there is no LockFallback bean of that name");
			}
			return this.beanFactory.getBean(name, LockFallback.class);
		});
	}

}
