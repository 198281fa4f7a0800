package io.github.redislock.interceptor;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.util.Assert;

/**
 * Applies a {@link LockInterceptor} to every method its {@link LockOperationSource} knows
 * as locked. Its order decides where the lock sits among other advice: by default it
 * wraps {@code @Transactional}, so a transaction ends before its lock is released.
 *
 * @since 0.1.0
 */
public class LockOperationSourceAdvisor extends AbstractPointcutAdvisor {

	private final LockOperationSourcePointcut pointcut;

	private final LockInterceptor interceptor;

	/**
	 * Creates an advisor.
	 * @param operationSource which methods are locked
	 * @param interceptor what runs around them
	 */
	public LockOperationSourceAdvisor(LockOperationSource operationSource, LockInterceptor interceptor) {
		Assert.notNull(operationSource, "operationSource must not be null");
		Assert.notNull(interceptor, "interceptor must not be null");
		this.pointcut = new LockOperationSourcePointcut(operationSource);
		this.interceptor = interceptor;
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
