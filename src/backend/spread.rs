//! Jobs spread over several devices: a zoom movie's keyframes over every GPU of the machine
//! (one backend, so one context, per device; what the jobs share, such as the reference orbit,
//! is shared by the caller's `render`).
//!
//! Each device has its own named thread (`wavebrot-device-N`) that takes the next job, in the
//! order they are needed, as soon as it is free, so a faster device takes more of them. Results
//! are handed to the caller's `deliver` in that same order on the calling thread (while the
//! devices go on), and no device runs more than `window` jobs ahead of the last one delivered,
//! so what waits for delivery stays bounded in memory.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex, PoisonError};

/// How a spread ended: jobs done by each device, in the order of the device list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spread {
    pub per_device: Vec<usize>,
}

struct Queue {
    next: usize,
    delivered: usize,
    stop: bool,
}

/// Runs jobs `0..jobs` on `devices`, `render(device, job)` on the device's thread, and calls
/// `deliver(job, result, device_index)` for each in the order `0, 1, 2, …` on this thread.
/// A device starts job `j` only once `j < delivered + window` (`window` at least 1).
///
/// # Errors
/// The first error of `render` or `deliver` (the devices stop taking jobs; those running end
/// first), or a thread that could not be started.
pub fn spread<D, R, E>(
    devices: Vec<D>,
    jobs: usize,
    window: usize,
    render: &(dyn Fn(&mut D, usize) -> Result<R, E> + Sync),
    deliver: &mut dyn FnMut(usize, R, usize) -> Result<(), E>,
) -> Result<Spread, E>
where
    D: Send,
    R: Send,
    E: Send + From<std::io::Error>,
{
    let window = window.max(1);
    let queue = Mutex::new(Queue { next: 0, delivered: 0, stop: false });
    let wake = Condvar::new();
    let lock = || queue.lock().unwrap_or_else(PoisonError::into_inner);
    let mut per_device = vec![0; devices.len()];
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, usize, Result<R, E>)>();
        for (d, mut device) in devices.into_iter().enumerate() {
            let tx = tx.clone();
            let (queue, wake) = (&queue, &wake);
            let spawned =
                std::thread::Builder::new().name(format!("wavebrot-device-{d}")).spawn_scoped(scope, move || {
                    loop {
                        let job = {
                            let mut q = queue.lock().unwrap_or_else(PoisonError::into_inner);
                            while !q.stop && q.next < jobs && q.next >= q.delivered + window {
                                q = wake.wait(q).unwrap_or_else(PoisonError::into_inner);
                            }
                            if q.stop || q.next >= jobs {
                                return;
                            }
                            q.next += 1;
                            q.next - 1
                        };
                        let result = render(&mut device, job);
                        let failed = result.is_err();
                        if tx.send((job, d, result)).is_err() || failed {
                            return;
                        }
                    }
                });
            if let Err(e) = spawned {
                lock().stop = true;
                wake.notify_all();
                return Err(E::from(e));
            }
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let stop = |e: E| {
            lock().stop = true;
            wake.notify_all();
            Err(e)
        };
        while next < jobs {
            let Ok((job, d, result)) = rx.recv() else {
                // Every device thread ended early: one panicked (the scope passes it on).
                break;
            };
            match result {
                Ok(r) => {
                    waiting.insert(job, (d, r));
                }
                Err(e) => return stop(e),
            }
            while let Some((d, r)) = waiting.remove(&next) {
                per_device[d] += 1;
                if let Err(e) = deliver(next, r, d) {
                    return stop(e);
                }
                next += 1;
                lock().delivered = next;
                wake.notify_all();
            }
        }
        Ok(Spread { per_device })
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// A fake device that takes `millis` per job.
    struct Fake {
        millis: u64,
    }

    #[test]
    fn three_devices_of_different_speeds_share_the_jobs_in_order() {
        let devices = vec![Fake { millis: 2 }, Fake { millis: 8 }, Fake { millis: 24 }];
        let started = AtomicUsize::new(0);
        let delivered_count = AtomicUsize::new(0);
        let ahead = AtomicUsize::new(0);
        let render = |f: &mut Fake, job: usize| -> Result<usize, std::io::Error> {
            started.fetch_add(1, Ordering::SeqCst);
            // How far this job is ahead of the last one delivered (the window bounds it).
            ahead.fetch_max(job.saturating_sub(delivered_count.load(Ordering::SeqCst)), Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(f.millis));
            Ok(job * 10)
        };
        let mut got = Vec::new();
        let s = spread(devices, 60, 6, &render, &mut |job, r, _| {
            got.push((job, r));
            delivered_count.store(job + 1, Ordering::SeqCst);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, (0..60).map(|j| (j, j * 10)).collect::<Vec<_>>(), "every job once, in order");
        assert_eq!(started.load(Ordering::SeqCst), 60, "no job rendered twice");
        assert_eq!(s.per_device.iter().sum::<usize>(), 60);
        let [fast, mid, slow] = [s.per_device[0], s.per_device[1], s.per_device[2]];
        // Speeds 12:3:1 would give 45:11:4 of 60 with no waiting; the window and the order
        // hold them back a little (measured 37:15:8). Budget: the order of the speeds.
        assert!(fast > mid && mid > slow && slow >= 1, "jobs per device {:?}", s.per_device);
        let ahead = ahead.load(Ordering::SeqCst);
        assert!(ahead < 6, "a job started {ahead} ahead of the last delivered (window 6)");
    }

    #[test]
    fn an_error_stops_the_devices() {
        let devices = vec![Fake { millis: 1 }, Fake { millis: 1 }];
        let started = AtomicUsize::new(0);
        let render = |f: &mut Fake, job: usize| {
            started.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(f.millis));
            if job == 5 { Err(std::io::Error::other("device lost")) } else { Ok(job) }
        };
        let mut delivered = Vec::new();
        let e = spread(devices, 100, 4, &render, &mut |job, _, _| {
            delivered.push(job);
            Ok(())
        });
        assert_eq!(e.map_err(|e| e.to_string()), Err("device lost".to_owned()));
        assert!(delivered.iter().all(|&j| j < 5), "{delivered:?}");
        let n = started.load(Ordering::SeqCst);
        assert!(n < 12, "{n} jobs started after job 5 failed within a window of 4");
    }

    #[test]
    fn one_device_takes_every_job() {
        let render = |_: &mut (), job: usize| Ok::<_, std::io::Error>(job);
        let mut n = 0;
        let s = spread(vec![()], 7, 1, &render, &mut |job, _, _| {
            assert_eq!(job, n);
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((n, s.per_device), (7, vec![7]));
    }
}
