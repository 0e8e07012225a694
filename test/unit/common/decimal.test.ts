import { decimalIn, parseDecimal, rangeProblem, rangeText, type NumberRange } from '../../../src/common/decimal';

const RATE: NumberRange = { what: 'a number', min: 0.01, max: 1_000_000 };
const COUNT: NumberRange = { what: 'a whole number', min: 1, integer: true };

describe('parseDecimal', () => {
  it('reads decimal notation, with a sign, a fraction, an exponent and blanks around', () => {
    expect(['60', ' 60 ', '+60', '0.5', '.5', '5.', '6e1', '6E+1', '600e-1'].map((t) => parseDecimal(t, RATE))).toEqual(
      [60, 60, 60, 0.5, 0.5, 5, 60, 60, 60],
    );
  });

  it.each(['0x3c', '0o74', '0b111100', 'Infinity', '-Infinity', 'NaN', '', ' ', '1_000', '60rpm', '6 0', '1,5'])(
    'refuses %j, naming the range',
    (text) => {
      expect(() => parseDecimal(text, RATE)).toThrow(`"${text}" is not a number from 0.01 to 1000000`);
    },
  );

  it('refuses a number out of its range: too small, too large, fractional where whole', () => {
    expect(() => parseDecimal('1e-300', RATE)).toThrow('"1e-300" is not a number from 0.01 to 1000000');
    expect(() => parseDecimal('1e400', RATE)).toThrow('is not a number from 0.01 to 1000000');
    expect(() => parseDecimal('0', COUNT)).toThrow('"0" is not a whole number of at least 1');
    expect(() => parseDecimal('1.5', COUNT)).toThrow('"1.5" is not a whole number of at least 1');
    expect(() => parseDecimal('1e300', COUNT)).toThrow('is not a whole number of at least 1');
    expect(decimalIn('1e3', COUNT)).toBe(1000);
  });
});

describe('rangeProblem', () => {
  it('names the range and the value', () => {
    expect(rangeProblem(1e-300, RATE)).toBe('must be a number from 0.01 to 1000000, got 1e-300');
    expect(rangeProblem('60', RATE)).toBe('must be a number from 0.01 to 1000000, got 60');
    expect(rangeProblem(60, RATE)).toBeUndefined();
  });

  it('says the range in words', () => {
    expect(rangeText({ what: 'a number', max: 2 })).toBe('a number of at most 2');
    expect(rangeText({ what: 'a number' })).toBe('a number');
  });
});
