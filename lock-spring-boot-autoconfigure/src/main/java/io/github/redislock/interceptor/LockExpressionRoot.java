package io.github.redislock.interceptor;

import java.lang.reflect.Method;

/**
 * The root object key expressions see: {@code #root.method}, {@code #root.args},
 * {@code #root.target}, {@code #root.targetClass}, {@code #root.methodName}.
 *
 * @since 0.1.0
 */
final class LockExpressionRoot {

	private final Method method;

	private final Object[] args;

	private final Object target;

	private final Class<?> targetClass;

	LockExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/** The method called. */
	public Method getMethod() {
		return this.method;
	}

	/** The method's name. */
	public String getMethodName() {
		return this.method.getName();
	}

	/** The call's arguments. */
	public Object[] getArgs() {
		return this.args;
	}

	/** The bean the method is called on. */
	public Object getTarget() {
		return this.target;
	}

	/** The class of the bean. */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

}
