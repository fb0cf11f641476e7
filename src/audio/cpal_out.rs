//! Sound out through `cpal` where the system's audio library ships with the OS (CoreAudio,
//! WASAPI): the default output device, any of cpal's common sample formats.

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

use super::{SoundError, Source};

pub struct Playback {
    _stream: cpal::Stream,
    frames: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Playback {
    pub fn open(name: Option<&str>, source: Source) -> Result<(Self, String, u32), SoundError> {
        let host = cpal::default_host();
        let device = match name {
            None => host.default_output_device(),
            Some(n) => host
                .output_devices()
                .ok()
                .and_then(|mut ds| ds.find(|d| d.description().is_ok_and(|x| x.to_string() == n))),
        }
        .ok_or(SoundError::NoDevice)?;
        let label = device.description().map_or_else(|_| "(unnamed)".to_owned(), |d| d.to_string());
        let config = device
            .default_output_config()
            .map_err(|e| SoundError::Open { device: label.clone(), error: e.to_string() })?;
        let format = config.sample_format();
        let config: cpal::StreamConfig = config.into();
        let channels = usize::from(config.channels.max(1));
        let frames = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let stream = match format {
            cpal::SampleFormat::F32 => build::<f32>(&device, &config, channels, source, &frames),
            cpal::SampleFormat::I16 => build::<i16>(&device, &config, channels, source, &frames),
            cpal::SampleFormat::I32 => build::<i32>(&device, &config, channels, source, &frames),
            cpal::SampleFormat::U16 => build::<u16>(&device, &config, channels, source, &frames),
            other => {
                return Err(SoundError::Open {
                    device: label,
                    error: format!("{other} samples, which wavebrot does not write"),
                });
            }
        }
        .map_err(|e| SoundError::Stream { device: label.clone(), error: e.to_string() })?;
        stream.play().map_err(|e| SoundError::Stream { device: label.clone(), error: e.to_string() })?;
        Ok((Self { _stream: stream, frames }, label, config.sample_rate))
    }

    pub fn frames_played(&self) -> u64 {
        self.frames.load(std::sync::atomic::Ordering::Relaxed)
    }
}

fn build<T>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    channels: usize,
    mut source: Source,
    frames: &std::sync::Arc<std::sync::atomic::AtomicU64>,
) -> Result<cpal::Stream, cpal::Error>
where
    T: cpal::SizedSample + cpal::FromSample<f32>,
{
    let frames = std::sync::Arc::clone(frames);
    let mut mono = Vec::new();
    device.build_output_stream::<T, _, _>(
        *config,
        move |out: &mut [T], _| {
            mono.resize(out.len() / channels, 0.0);
            source(&mut mono);
            for (frame, &v) in out.chunks_mut(channels).zip(&mono) {
                frame.fill(T::from_sample(v));
            }
            frames.fetch_add(mono.len() as u64, std::sync::atomic::Ordering::Relaxed);
        },
        // Underruns and device changes are heard, not shown; the stream keeps going.
        |_error| {},
        None,
    )
}

pub fn describe() -> String {
    match cpal::default_host().default_output_device() {
        Some(d) => format!("{} (cpal)", d.description().map_or_else(|_| "(unnamed)".to_owned(), |d| d.to_string())),
        None => SoundError::NoDevice.to_string(),
    }
}
