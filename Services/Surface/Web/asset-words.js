// How an asset is named to a person: its kind and date for a screen reader ("Video, 0:42, 3 March
// 2025, 14:02"), and the badges on its thumbnail (a duration, GIF or WebP, LIVE, the cloud).
import { locale, t } from "./strings.js";

const when = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short" });

// "Video, 0:42, 3 March 2025, 14:02" in the browser's language; what a screen reader says for a cell.
export function describe(asset) {
  const parts = [kind(asset)];
  if (asset.mediaType === "video" && asset.duration != null) parts.push(duration(asset.duration));
  const created = new Date(asset.creationDate);
  if (!Number.isNaN(created.getTime())) parts.push(when.format(created));
  if (asset.isInCloud) parts.push(t("in the cloud"));
  return parts.join(t(", "));
}

function kind(asset) {
  const subtypes = asset.subtypes || [];
  if (asset.mediaType === "video") {
    if (subtypes.includes("slomo") || subtypes.includes("highFrameRate")) return t("Slow-motion video");
    if (subtypes.includes("timelapse")) return t("Time-lapse video");
    return t("Video");
  }
  if (subtypes.includes("animated")) return t("Animated {format}", { format: animatedFormat(asset) });
  if (subtypes.includes("livePhoto")) return t("Live Photo");
  if (subtypes.includes("screenshot")) return t("Screenshot");
  if (subtypes.includes("panorama")) return t("Panorama");
  return t("Photo");
}

// An animated image's badge names its real format: an animated WebP is not a GIF.
function animatedFormat(asset) {
  const type = typeof asset.type === "string" ? asset.type : (asset.type && asset.type.identifier) || "";
  if (type === "com.compuserve.gif") return "GIF";
  if (type === "org.webmproject.webp") return "WebP";
  if (type === "public.png") return "PNG";
  return t("image");
}

export function badgeTexts(asset) {
  const subtypes = asset.subtypes || [];
  const badges = [];
  if (asset.mediaType === "video" && asset.duration != null) badges.push(duration(asset.duration));
  if (subtypes.includes("animated")) badges.push(animatedFormat(asset).toUpperCase());
  if (subtypes.includes("livePhoto")) badges.push("LIVE");
  if (asset.isInCloud) badges.push("☁");
  return badges;
}

function duration(seconds) {
  const whole = Math.round(seconds);
  return Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
}
