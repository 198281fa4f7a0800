package io.github.redislock.sample.stock;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The stock repository and ledger of this instance.
 */
@Configuration(proxyBeanMethods = false)
class StockConfiguration {

	@Bean
	StockRepository stockRepository(StringRedisTemplate redisTemplate) {
		return new StockRepository(redisTemplate);
	}

	@Bean
	StockLedger stockLedger(StockRepository stockRepository, StockProperties properties) {
		return new StockLedger(stockRepository, properties.thinkTime());
	}

}
