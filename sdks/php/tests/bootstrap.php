<?php

declare(strict_types=1);

// Composer's autoloader when `composer install` ran; otherwise the same PSR-4 mapping, read from composer.json.
if (is_file(__DIR__ . '/../vendor/autoload.php')) {
    require __DIR__ . '/../vendor/autoload.php';
} else {
    $psr4 = json_decode((string) file_get_contents(__DIR__ . '/../composer.json'), true)['autoload']['psr-4'];
    spl_autoload_register(static function (string $class) use ($psr4): void {
        foreach ($psr4 as $prefix => $dir) {
            if (str_starts_with($class, $prefix)) {
                require __DIR__ . '/../' . $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            }
        }
    });
}
