package io.github.redislock.interceptor;

import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;

import io.github.redislock.annotation.InvalidLockAnnotationException;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.jspecify.annotations.Nullable;

/**
 * Parses key expressions once, when the bean is created, and rejects those that cannot
 * work: bad syntax, or a variable that is neither a parameter name nor
 * {@code #p<n>}/{@code #a<n>}/{@code #root}.
 */
final class KeyExpressionParser {

	private static final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final SpelExpressionParser parser = new SpelExpressionParser();

	LockOperation.KeyExpression parse(String source, Method method, String where) {
		if (source == null || source.isBlank()) {
			throw new InvalidLockAnnotationException(where + ": key expressions must not be blank",
					"Remove the empty key, or write an expression such as #orderId");
		}
		Expression expression;
		try {
			expression = this.parser.parseExpression(source);
		}
		catch (ParseException ex) {
			throw new InvalidLockAnnotationException(
					where + ": key expression '" + source + "' cannot be parsed: " + ex.getMessage(),
					"Correct the expression: it is SpEL, for example #orderId, #order.id or {#tenant, #sku}", ex);
		}
		checkVariables(((SpelExpression) expression).getAST(), source, method, where);
		return new LockOperation.KeyExpression(source, expression);
	}

	/**
	 * The parameter names of the method, or {@code null} when it was compiled without
	 * {@code -parameters}; a name Spring could not tell is {@code null}.
	 */
	static @Nullable String @Nullable [] parameterNamesOf(Method method) {
		return parameterNames.getParameterNames(method);
	}

	private static void checkVariables(SpelNode node, String source, Method method, String where) {
		if (node instanceof VariableReference) {
			String variable = node.toStringAST().substring(1);
			if (!isKnown(variable, method)) {
				@Nullable String[] names = parameterNamesOf(method);
				String known = (names != null) ? String.join(", ", names)
						: "unknown: compile with -parameters to use names, or use #p0, #p1, ...";
				throw new InvalidLockAnnotationException(
						where + ": key expression '" + source + "' uses #" + variable
								+ ", which is not a parameter of the method (parameters: " + known + ")",
						"Use a parameter's name, #p0/#a0 by position, or #root.args[0]");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(node.getChild(i), source, method, where);
		}
	}

	private static boolean isKnown(String variable, Method method) {
		if (variable.equals("root") || variable.equals("this")) {
			return true;
		}
		int count = method.getParameterCount();
		Set<String> known = new HashSet<>();
		for (int i = 0; i < count; i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		@Nullable String[] names = parameterNamesOf(method);
		if (names != null) {
			for (String name : names) {
				if (name != null) {
					known.add(name);
				}
			}
		}
		return known.contains(variable);
	}

}
