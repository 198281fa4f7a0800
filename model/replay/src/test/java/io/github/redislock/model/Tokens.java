package io.github.redislock.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * The model's tokens (and fencing clock values) against Redis': the same value must stand
 * for the same value, and their order must be the same. Redis' tokens come from its own
 * clock (TIME, in microseconds), so they are never equal to the model's.
 */
final class Tokens {

	private final TreeMap<Long, Long> realByModel = new TreeMap<>();

	/**
	 * Redis' value for a model token seen before (a grant a command names), 0 for the
	 * model's 0 (unknown).
	 */
	long real(String where, long model) {
		if (model == 0) {
			return 0;
		}
		Long known = this.realByModel.get(model);
		Checks.check(where, known != null, "the model's token %d was never seen in Redis", model);
		return known;
	}

	void check(String where, String what, long model, long real) {
		Long known = this.realByModel.get(model);
		if (known != null) {
			Checks.check(where, known == real, "%s is %d, where the model's %d was %d before", what, real, model,
					known);
			return;
		}
		Map.Entry<Long, Long> below = this.realByModel.lowerEntry(model);
		Map.Entry<Long, Long> above = this.realByModel.higherEntry(model);
		Checks.check(where, below == null || below.getValue() < real,
				"%s is %d, not above %d as the model's %d is above %d", what, real,
				(below != null) ? below.getValue() : null, model, (below != null) ? below.getKey() : null);
		Checks.check(where, above == null || above.getValue() > real,
				"%s is %d, not below %d as the model's %d is below %d", what, real,
				(above != null) ? above.getValue() : null, model, (above != null) ? above.getKey() : null);
		this.realByModel.put(model, real);
	}

}
