//! `Track`: what rides beside a perturbed orbit ([`super::perturb::perturb_escape_tracked`]),
//! told of every iteration the pixel takes. The counts track nothing (`()`, compiled away); the
//! distance estimate tracks the derivative `dz/dc` ([`super::deep_distance::Slope`]). And
//! `Iterations`, the count of a row's iterations, rule's and executed.

use super::real::Real;

/// Told of each iteration of a pixel's orbit, in the order the rule takes them.
pub trait Track<T: Real> {
    /// One iteration `z' = z^2 + c` of the pixel's full `z = (zr + i zi) 2^ze` (a single
    /// perturbed step, an extended-exponent one, a rebase, or a step of the smooth tail).
    fn step(&mut self, zr: T, zi: T, ze: i32);
    /// A BLA step `dz' = A dz + B dc` of the table's entry: `ab` the mantissas `[Re A, Im A,
    /// Re B, Im B]`, `A` scaled by `2^ea`, `B` by `2^eb`.
    fn bla(&mut self, ab: &[f64], ea: i32, eb: i32);
}

/// Nothing tracked: the plain count.
impl<T: Real> Track<T> for () {
    #[inline]
    fn step(&mut self, _: T, _: T, _: i32) {}
    #[inline]
    fn bla(&mut self, _: &[f64], _: i32, _: i32) {}
}

/// Iterations of a row or an image: the rule's (`min(count + 1, iters)` a pixel) and those
/// executed (fewer where BLA skipped some).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Iterations {
    pub rule: u64,
    pub executed: u64,
}

impl std::ops::Add for Iterations {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self { rule: self.rule + o.rule, executed: self.executed + o.executed }
    }
}

impl std::iter::Sum for Iterations {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |a, b| a + b)
    }
}
