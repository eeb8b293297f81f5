/** The catalogue the search contract runs on: six products covering every field type and a hidden field. */
import type { IndexDefinition, SearchDocument } from '../../../src/search/search-port';

export const PRODUCTS: IndexDefinition = {
  name: 'products',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'description', type: 'string' },
    { name: 'category', type: 'string' },
    { name: 'price', type: 'number' },
    { name: 'stock', type: 'integer' },
    { name: 'active', type: 'boolean' },
    { name: 'released', type: 'timestamp' },
    { name: 'secret', type: 'string' },
    { name: 'attrs', type: 'object' },
  ],
};

export const PRODUCT_DOCS: SearchDocument[] = [
  {
    id: 'p1',
    version: 1,
    source: {
      name: 'Red Running Shoes',
      description: 'Lightweight shoes for running on the road',
      category: 'footwear',
      price: 89.99,
      stock: 12,
      active: true,
      released: '2023-03-01T00:00:00Z',
      secret: 'classified supplier',
      attrs: { color: 'red' },
    },
  },
  {
    id: 'p2',
    version: 1,
    source: {
      name: 'Blue Running Shorts',
      description: 'Breathable shorts for summer running',
      category: 'apparel',
      price: 34.5,
      stock: 40,
      active: true,
      released: '2023-05-15T00:00:00Z',
    },
  },
  {
    id: 'p3',
    version: 1,
    source: {
      name: 'Trail Shoes',
      description: 'Rugged shoes for trail running and hiking',
      category: 'footwear',
      price: 129,
      stock: 0,
      active: false,
      released: '2022-11-20T00:00:00Z',
    },
  },
  {
    id: 'p4',
    version: 1,
    source: {
      name: 'Wool Socks',
      description: 'Warm socks for winter hiking',
      category: 'apparel',
      price: 12,
      stock: 100,
      active: true,
      released: '2021-12-01T00:00:00Z',
    },
  },
  {
    id: 'p5',
    version: 1,
    source: {
      name: 'Water Bottle',
      description: 'Keeps drinks cold',
      category: 'accessories',
      price: 19.99,
      stock: 25,
      active: true,
      released: '2024-01-10T00:00:00Z',
    },
  },
  { id: 'p6', version: 1, source: { name: 'Headlamp', category: 'accessories', price: 45, stock: 5, active: false, released: '2024-02-01T00:00:00Z' } },
];

/** Every field but `secret`: what a restricted caller may read. */
export const READABLE_WITHOUT_SECRET = new Set(PRODUCTS.fields.map((f) => f.name).filter((n) => n !== 'secret'));
