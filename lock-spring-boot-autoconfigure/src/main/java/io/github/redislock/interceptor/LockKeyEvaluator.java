package io.github.redislock.interceptor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import io.github.redislock.internal.LockNames;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ObjectUtils;

/**
 * Turns a call into the names of the locks it needs. Expressions were parsed when the
 * bean was created; the variable names of each method are worked out once; a call only
 * evaluates.
 */
final class LockKeyEvaluator {

	// Holds the accessors, resolvers and bean resolver every call shares, so that their
	// caches (reflective getter lookups) live as long as the evaluator, as in Spring's
	// cache abstraction.
	private final StandardEvaluationContext template = new StandardEvaluationContext();

	LockKeyEvaluator(@Nullable BeanFactory beanFactory) {
		if (beanFactory != null) {
			this.template.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
	}

	/**
	 * The lock names of one call, sorted and without duplicates: the order in which to
	 * acquire them.
	 * @throws IllegalArgumentException if a key part is null, blank, an empty collection,
	 * or contains a brace
	 */
	List<String> lockNames(LockOperation operation, @Nullable Object target, @Nullable Class<?> targetClass,
			@Nullable Object[] arguments) {
		if (operation.keys().isEmpty()) {
			return List.of(operation.getName());
		}
		StandardEvaluationContext context = context(operation, target, targetClass, arguments);
		List<String> prefixes = List.of(operation.getName());
		for (LockOperation.KeyExpression key : operation.keys()) {
			List<String> parts = parts(operation, key, context);
			List<String> names = new ArrayList<>(prefixes.size() * parts.size());
			for (String prefix : prefixes) {
				for (String part : parts) {
					names.add(prefix + ":" + part);
				}
			}
			prefixes = names;
		}
		return (prefixes.size() == 1) ? prefixes : List.copyOf(new TreeSet<>(prefixes));
	}

	private List<String> parts(LockOperation operation, LockOperation.KeyExpression key,
			StandardEvaluationContext context) {
		Object value;
		try {
			value = key.expression().getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IllegalArgumentException(where(operation, key) + " failed: " + ex.getMessage(), ex);
		}
		if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
			Collection<?> elements = (value instanceof Collection<?> collection) ? collection
					: List.of(ObjectUtils.toObjectArray(value));
			if (elements.isEmpty()) {
				throw new IllegalArgumentException(where(operation, key) + " evaluated to an empty "
						+ ((value instanceof Collection<?>) ? "collection" : "array")
						+ ", so there is nothing to lock");
			}
			List<String> parts = new ArrayList<>(elements.size());
			for (Object element : elements) {
				parts.add(part(operation, key, element));
			}
			return parts;
		}
		return List.of(part(operation, key, value));
	}

	private static String part(LockOperation operation, LockOperation.KeyExpression key, @Nullable Object value) {
		String part = (value != null) ? value.toString() : null;
		if (part == null || part.isBlank()) {
			throw new IllegalArgumentException(
					where(operation, key) + " evaluated to " + ((part == null) ? "null" : "a blank value")
							+ "; refusing to lock a key such as '" + operation.getName() + ":" + part + "'");
		}
		String escaped = LockNames.escapeBraces(part);
		String problem = LockNames.problem(operation.getName() + ":" + escaped);
		if (problem != null) {
			throw new IllegalArgumentException(where(operation, key) + " evaluated to " + LockNames.quote(part)
					+ "; the lock name it makes " + problem + ". Lock on an identifier rather than a whole value, "
					+ "or on a digest of it, e.g. key = \"T(org.springframework.util.DigestUtils)"
					+ ".md5DigestAsHex(#document.bytes)\"");
		}
		return escaped;
	}

	private StandardEvaluationContext context(LockOperation operation, @Nullable Object target,
			@Nullable Class<?> targetClass, @Nullable Object[] arguments) {
		StandardEvaluationContext context = new StandardEvaluationContext(
				new LockExpressionRoot(operation.getMethod(), arguments, target, targetClass));
		this.template.applyDelegatesTo(context);
		String[][] names = operation.variableNames();
		for (int i = 0; i < arguments.length; i++) {
			for (String name : names[i]) {
				context.setVariable(name, arguments[i]);
			}
		}
		return context;
	}

	private static String where(LockOperation operation, LockOperation.KeyExpression key) {
		return "@DistributedLock on " + operation.describeMethod() + ": key expression '" + key.source() + "'";
	}

}
