create table stock (sku varchar(32) primary key, quantity int not null);
insert into stock values ('sku-1', 1000), ('sku-2', 1000), ('sku-3', 1000);
